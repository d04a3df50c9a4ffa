"""tg.distributions' gamma family and counts (Gamma, Beta, Dirichlet, Poisson, Binomial,
Geometric): values and gradients equal to torch.distributions' and to finite differences;
Geometric's samples are torch's bit for bit; the samplers tapegrad does not reproduce (gamma,
Poisson, binomial) are checked by their moments, and the gamma draws' implicit gradient against
torch's _standard_gamma_grad.
"""

from __future__ import annotations

import doctest

import numpy as np
import pytest
from helpers import check_grads
from test_distributions_basic import matches_pytorch

import tapegrad as tg
from tapegrad import distributions as D
from tapegrad.distributions import _gamma_sampling

A = np.array([[0.7, 1.5, 3.0], [2.0, 0.4, 5.0]])
B = np.array([[2.0, 0.5, 1.2], [0.9, 3.0, 1.1]])
X = np.array([[0.3, 1.1, 2.5], [0.6, 0.2, 4.0]])
U = np.array([[0.3, 0.6, 0.8], [0.1, 0.5, 0.95]])
COUNTS = np.array([[0.0, 2.0, 5.0], [1.0, 3.0, 4.0]])


def _torch():
    return pytest.importorskip("torch", reason="compares with PyTorch")


CASES = {
    "Gamma": (lambda m, a, b: m.distributions.Gamma(a, b), X),
    "Beta": (lambda m, a, b: m.distributions.Beta(a, b), U),
    "Dirichlet": (lambda m, a, b: m.distributions.Dirichlet(a * b), U / U.sum(-1, keepdims=True)),
    "Poisson": (lambda m, a, b: m.distributions.Poisson(a * b), COUNTS),
    "Binomial": (lambda m, a, b: m.distributions.Binomial(5, probs=a / (a + b)), COUNTS),
    "BinomialLogits": (lambda m, a, b: m.distributions.Binomial(5, logits=a - b), COUNTS),
    "Geometric": (lambda m, a, b: m.distributions.Geometric(probs=a / (a + b)), COUNTS),
    "GeometricLogits": (lambda m, a, b: m.distributions.Geometric(logits=a - b), COUNTS),
}


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("method", ["log_prob", "entropy", "mean", "variance"])
def test_values_and_gradients(name, method):
    make, value = CASES[name]
    if method == "entropy" and name == "Poisson":
        pytest.skip("torch's Poisson has no entropy either")

    def fn(m, a, b):
        d = make(m, a, b)
        if method == "log_prob":
            return d.log_prob(m.tensor(value))
        return d.entropy() if method == "entropy" else getattr(d, method)

    matches_pytorch(fn, [A, B])
    check_grads(lambda a, b: fn(tg, a, b), A, B, second=False)


@pytest.mark.parametrize("name", sorted(CASES))
def test_shapes_and_modes_as_torch(name):
    torch = _torch()
    make, value = CASES[name]
    ours = make(tg, tg.tensor(A), tg.tensor(B))
    theirs = make(torch, torch.tensor(A), torch.tensor(B))
    assert ours.batch_shape == tuple(theirs.batch_shape)
    assert ours.event_shape == tuple(theirs.event_shape)
    assert np.allclose(ours.mode.numpy(), theirs.mode.numpy())
    sample = ours.sample((4,))
    assert sample.shape == tuple(theirs.sample((4,)).shape)
    assert sample.dtype == np.float64 and not sample.requires_grad
    assert bool(ours.support.check(sample).all())
    e = ours.expand((5,) + ours.batch_shape)
    assert e.batch_shape == (5,) + ours.batch_shape
    assert np.allclose(
        e.log_prob(tg.tensor(value)).numpy()[3], ours.log_prob(tg.tensor(value)).numpy()
    )


def test_gamma_cdf_as_torch():
    torch = _torch()
    ours = D.Gamma(tg.tensor(A), tg.tensor(B)).cdf(tg.tensor(X))
    theirs = torch.distributions.Gamma(torch.tensor(A), torch.tensor(B)).cdf(torch.tensor(X))
    assert np.allclose(ours.numpy(), theirs.numpy())


@pytest.mark.parametrize("sample_shape", [(), (3,), (2, 4)])
@pytest.mark.parametrize("param", ["probs", "logits"])
def test_geometric_samples_are_torchs_bit_for_bit(sample_shape, param):
    torch = _torch()
    arr = (A / (A + B)).astype(np.float32) if param == "probs" else (A - B).astype(np.float32)
    tg.manual_seed(11)
    torch.manual_seed(11)
    ours = D.Geometric(**{param: tg.tensor(arr)}).sample(sample_shape)
    theirs = torch.distributions.Geometric(**{param: torch.tensor(arr)}).sample(sample_shape)
    assert ours.dtype == np.float32 and np.array_equal(ours.numpy(), theirs.numpy())


# ---- samplers that are not torch's: their moments (N draws, fixed seed) -------------------------
# Each sample mean must be within 5 standard errors (sqrt(var / N)) of the true mean: a correct
# sampler fails that with probability < 1e-6; a wrong parameterisation (scale for rate, a
# swapped concentration) moves the mean by many standard errors. The variance within 5%: with
# N = 40000 its relative standard error is sqrt((kurtosis - 1) / N), under 1.5% for these.
N = 40000
MOMENT_CASES = {
    "Gamma": lambda: D.Gamma(tg.tensor([0.5, 2.0, 7.0]), tg.tensor([1.0, 0.5, 3.0])),
    "Beta": lambda: D.Beta(tg.tensor([0.5, 2.0, 7.0]), tg.tensor([1.0, 0.5, 3.0])),
    "Dirichlet": lambda: D.Dirichlet(tg.tensor([0.5, 2.0, 7.0])),
    "Poisson": lambda: D.Poisson(tg.tensor([0.3, 2.0, 40.0])),
    "Binomial": lambda: D.Binomial(tg.tensor([3.0, 10.0, 50.0]), tg.tensor([0.2, 0.5, 0.9])),
}


@pytest.mark.parametrize("name", sorted(MOMENT_CASES))
def test_sampler_moments(name):
    d = MOMENT_CASES[name]()
    tg.manual_seed(0)
    x = d.sample((N,)).numpy()
    mean, var = d.mean.numpy(), d.variance.numpy()
    assert (np.abs(x.mean(0) - mean) < 5 * np.sqrt(var / N)).all()
    assert np.allclose(x.var(0), var, rtol=0.05)
    tg.manual_seed(0)
    again = d.sample((N,)).numpy()
    assert np.array_equal(x, again)  # tg.manual_seed makes it repeatable
    assert not np.array_equal(x, d.sample((N,)).numpy())


def test_standard_gamma_gradient_is_torchs():
    torch = _torch()
    a = np.array([0.05, 0.5, 1.0, 3.0, 20.0, 300.0])
    x = np.array([0.001, 0.3, 1.2, 2.5, 22.0, 280.0])
    ours = _gamma_sampling.standard_gamma_grad(a, x)
    theirs = torch._standard_gamma_grad(torch.tensor(a), torch.tensor(x)).numpy()
    assert np.allclose(ours, theirs, rtol=1e-3)  # (torch's own is an approximation to ~1e-4)


def test_gamma_rsample_is_reparameterized():
    # d x / d rate = -x / rate exactly; E[d x / d concentration] = d E[x] / d concentration
    # = 1 / rate (within 5 standard errors of the per-sample gradients' mean)
    conc = tg.tensor([0.6, 2.5], requires_grad=True)
    rate = tg.tensor([2.0, 0.5], requires_grad=True)
    tg.manual_seed(1)
    x = D.Gamma(conc, rate).rsample((N,))
    x.sum().backward()
    assert np.allclose(rate.grad.numpy(), -x.detach().numpy().sum(0) / rate.detach().numpy())
    per_sample = []
    for i in range(2):
        c = tg.tensor([0.6, 2.5][i], requires_grad=True)
        tg.manual_seed(2)
        y = D.Gamma(c, tg.tensor(1.0)).rsample((N,))
        g = tg.autograd.grad(y.sum(), c)[0]
        per_sample.append(float(g.numpy()) / N)
    assert abs(per_sample[0] - 1) < 0.03 and abs(per_sample[1] - 1) < 0.03


def test_dirichlet_and_beta_rsample_have_gradients():
    c = tg.tensor([0.8, 2.0, 3.0], requires_grad=True)
    tg.manual_seed(4)
    s = D.Dirichlet(c).rsample((N,))
    assert np.allclose(s.detach().numpy().sum(-1), 1)
    # E[s_0] = c_0 / sum(c): its derivative in c_0 is (sum - c_0) / sum^2
    g = tg.autograd.grad(s[:, 0].mean(), c)[0].numpy()
    total = 5.8
    assert abs(g[0] - (total - 0.8) / total**2) < 0.02
    assert abs(g[1] + 0.8 / total**2) < 0.02
    b = D.Beta(tg.tensor(2.0, requires_grad=True), tg.tensor(3.0))
    assert b.rsample((3,)).requires_grad and D.Beta.has_rsample and not D.Poisson.has_rsample


def test_bad_parameters_raise_torchs_value_errors():
    torch = _torch()
    cases = [
        lambda m: m.distributions.Gamma(m.tensor([1.0]), m.tensor([-1.0])),
        lambda m: m.distributions.Beta(m.tensor([0.0]), m.tensor([1.0])),
        lambda m: m.distributions.Dirichlet(m.tensor([1.0, -1.0])),
        lambda m: m.distributions.Dirichlet(m.tensor(1.0)),
        lambda m: m.distributions.Poisson(m.tensor([-1.0])),
        lambda m: m.distributions.Binomial(m.tensor([1.5]), m.tensor([0.5])),
        lambda m: m.distributions.Geometric(m.tensor([0.0])),
    ]
    for make in cases:
        with pytest.raises(ValueError) as theirs:
            make(torch)
        with pytest.raises(ValueError) as ours:
            make(tg)
        assert str(ours.value).split("(")[0] == str(theirs.value).split("(")[0]
    for make, value in [
        (lambda m: m.distributions.Poisson(m.tensor([1.0])), [0.5]),
        (lambda m: m.distributions.Binomial(3, m.tensor([0.5])), [4.0]),
        (lambda m: m.distributions.Dirichlet(m.tensor([1.0, 1.0])), [0.5, 0.6]),
    ]:
        with pytest.raises(ValueError):
            make(torch).log_prob(torch.tensor(value))
        with pytest.raises(ValueError):
            make(tg).log_prob(tg.tensor(value))


def test_binomial_entropy_refuses_inhomogeneous_counts_as_torch():
    with pytest.raises(NotImplementedError, match="Inhomogeneous"):
        D.Binomial(tg.tensor([2.0, 3.0]), tg.tensor([0.5, 0.5])).entropy()


def test_doc_examples_run():
    flags = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
    mods = [D.gamma, D.beta, D.dirichlet, D.poisson, D.binomial, D.geometric, _gamma_sampling]
    for module in mods:
        names = {"tg": tg, "np": np} if module is _gamma_sampling else {"tg": tg, **vars(D)}
        result = doctest.testmod(module, extraglobs=names, optionflags=flags)
        assert result.failed == 0, module.__name__
