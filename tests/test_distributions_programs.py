"""The programs torch.distributions is used for, run in tapegrad and in PyTorch on the same
weights and seed: REINFORCE with a Categorical policy (pytorch/examples' reinforce.py), a VAE's
reparameterized Normal and its kl_divergence to the prior, a Gaussian policy's log_prob and
entropy bonus, a Gaussian mixture's negative log-likelihood. Actions, losses and gradients equal;
second derivatives of the common log-densities checked by finite differences.
"""

from __future__ import annotations

import numpy as np
import pytest
from helpers import check_grads, rand

import tapegrad as tg
from tapegrad import distributions as D

W1, B1, OBS = rand(4, 5, seed=1) * 0.5, rand(4, seed=2) * 0.1, rand(6, 5, seed=3)


def _torch():
    return pytest.importorskip("torch", reason="compares with PyTorch")


def _leaves(m, *arrays):
    return [m.tensor(a, requires_grad=True) for a in arrays]


def _same(ours, theirs):
    for x, y in zip(ours, theirs):
        assert np.allclose(x.grad.numpy(), y.grad.numpy()), "gradients differ"


def reinforce(m, w, b, obs, seed):
    """One REINFORCE episode step: actions sampled from softmax(obs W^T + b), returns weighted."""
    m.manual_seed(seed)
    probs = m.softmax(obs @ w.T + b, dim=-1)
    policy = m.distributions.Categorical(probs)
    actions = policy.sample()
    returns = m.tensor(np.linspace(1.0, -1.0, 6))
    loss = (-policy.log_prob(actions) * returns).sum()
    loss.backward()
    return actions, loss


def test_reinforce_categorical_policy_as_torch():
    torch = _torch()
    ours, theirs = _leaves(tg, W1, B1), _leaves(torch, W1, B1)
    a, loss = reinforce(tg, *ours, tg.tensor(OBS), 4)
    ta, tloss = reinforce(torch, *theirs, torch.tensor(OBS), 4)
    assert a.dtype == np.int64 and np.array_equal(a.numpy(), ta.numpy())
    assert np.allclose(loss.item(), tloss.item())
    _same(ours, theirs)


def vae_step(m, w, b, obs, seed):
    """A VAE encoder's latent sample (rsample) and its KL to the standard normal prior."""
    m.manual_seed(seed)
    h = obs @ w.T + b
    mu, logvar = h[:, :2], h[:, 2:]
    q = m.distributions.Normal(mu, (0.5 * logvar).exp())
    z = q.rsample()
    prior = m.distributions.Normal(m.zeros_like(mu), m.ones_like(mu))
    loss = (z**2).sum() + m.distributions.kl_divergence(q, prior).sum()
    loss.backward()
    return z, loss


def test_vae_reparameterization_and_kl_as_torch():
    torch = _torch()
    ours, theirs = _leaves(tg, W1, B1), _leaves(torch, W1, B1)
    z, loss = vae_step(tg, *ours, tg.tensor(OBS), 5)
    tz, tloss = vae_step(torch, *theirs, torch.tensor(OBS), 5)
    # (the same draws; the parameters come out of a matmul rounded apart from torch's BLAS by
    # an ulp, so the samples agree to the last bits, not bit for bit)
    assert np.allclose(z.detach().numpy(), tz.detach().numpy(), rtol=1e-12, atol=1e-14)
    assert np.allclose(loss.item(), tloss.item())
    _same(ours, theirs)


def gaussian_policy(m, w, b, obs, seed):
    """A continuous-action policy: sample, log_prob of the action, entropy bonus."""
    m.manual_seed(seed)
    h = obs @ w.T + b
    dist = m.distributions.Independent(m.distributions.Normal(h[:, :2], h[:, 2:].exp()), 1)
    action = dist.sample()
    loss = -(dist.log_prob(action) * m.tensor(np.arange(6.0))).mean() - 0.01 * dist.entropy().mean()
    loss.backward()
    return action, loss


def test_gaussian_policy_as_torch():
    torch = _torch()
    ours, theirs = _leaves(tg, W1, B1), _leaves(torch, W1, B1)
    a, loss = gaussian_policy(tg, *ours, tg.tensor(OBS), 6)
    ta, tloss = gaussian_policy(torch, *theirs, torch.tensor(OBS), 6)
    assert np.allclose(a.numpy(), ta.numpy(), rtol=1e-12, atol=1e-14)  # (as the VAE's)
    assert np.allclose(loss.item(), tloss.item())
    _same(ours, theirs)


def mixture_nll(m, logits, loc, log_scale, x):
    """A 1-D Gaussian mixture's negative log-likelihood."""
    mix = m.distributions.Categorical(logits=logits)
    comp = m.distributions.Normal(loc, log_scale.exp())
    loss = -m.distributions.MixtureSameFamily(mix, comp).log_prob(x).mean()
    loss.backward()
    return loss


def test_gaussian_mixture_nll_as_torch():
    torch = _torch()
    arrays = (rand(3, seed=4), rand(3, seed=5), rand(3, seed=6) * 0.3)
    ours, theirs = _leaves(tg, *arrays), _leaves(torch, *arrays)
    loss = mixture_nll(tg, *ours, tg.tensor(rand(50, seed=7)))
    tloss = mixture_nll(torch, *theirs, torch.tensor(rand(50, seed=7)))
    assert np.allclose(loss.item(), tloss.item())
    _same(ours, theirs)


def test_second_derivatives_of_common_log_densities():
    x = rand(2, 3, seed=8)
    pos = np.abs(rand(2, 3, seed=9)) + 0.5
    check_grads(lambda a, b: D.Normal(a, b).log_prob(tg.tensor(x)), rand(2, 3, seed=1), pos)
    check_grads(lambda g: D.Categorical(logits=g).log_prob(tg.tensor([0, 2])), rand(2, 3))
    check_grads(lambda a, b: D.Gamma(a, b).log_prob(tg.tensor(pos)), pos, pos[::-1].copy())
    check_grads(lambda a, b: D.kl_divergence(D.Normal(a, b), D.Normal(b, a)), pos, pos + 1)
