"""MultivariateNormal (its three parameterizations), Independent and MixtureSameFamily: values,
shapes and gradients equal to torch.distributions' and to finite differences; samples drawn from
torch's streams; kl for MVN and Independent pairs; torch's errors.
"""

from __future__ import annotations

import doctest

import numpy as np
import pytest
from helpers import check_grads
from test_distributions_basic import matches_pytorch

import tapegrad as tg
from tapegrad import distributions as D

_rng = np.random.default_rng(0)
_M = _rng.standard_normal((2, 3, 3))
COV = _M @ _M.transpose(0, 2, 1) + np.eye(3)
TRIL = np.linalg.cholesky(COV)
LOC = _rng.standard_normal((2, 3))
X = _rng.standard_normal((4, 2, 3))
POS = np.abs(LOC) + 0.5


def _torch():
    return pytest.importorskip("torch", reason="compares with PyTorch")


def _mvn(m, loc, matrix, kind):
    if kind == "scale_tril":
        matrix = matrix.tril()  # (finite differences move the upper triangle too)
    elif kind != "scale_tril":
        matrix = (matrix + matrix.transpose(-2, -1)) / 2  # symmetric under perturbation
    return m.distributions.MultivariateNormal(loc, **{kind: matrix})


KINDS = ["covariance_matrix", "precision_matrix", "scale_tril"]


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("what", ["log_prob", "entropy", "variance", "covariance_matrix"])
def test_mvn_values_and_gradients(kind, what):
    matrix = TRIL if kind == "scale_tril" else COV

    def fn(m, loc, mat):
        d = _mvn(m, loc, mat, kind)
        if what == "log_prob":
            return d.log_prob(m.tensor(X))
        return d.entropy() if what == "entropy" else getattr(d, what)

    matches_pytorch(fn, [LOC, matrix])
    check_grads(lambda loc, mat: fn(tg, loc, mat), LOC, matrix, second=False)


@pytest.mark.parametrize("kind", KINDS)
def test_mvn_shapes_and_rsample_as_torch(kind):
    torch = _torch()
    matrix = TRIL if kind == "scale_tril" else COV
    ours = D.MultivariateNormal(tg.tensor(LOC[0]), **{kind: tg.tensor(matrix)})
    theirs = torch.distributions.MultivariateNormal(
        torch.tensor(LOC[0]), **{kind: torch.tensor(matrix)}
    )
    assert ours.batch_shape == tuple(theirs.batch_shape) == (2,)
    assert ours.event_shape == tuple(theirs.event_shape) == (3,)
    for name in ("scale_tril", "covariance_matrix", "precision_matrix", "mean", "mode"):
        assert np.allclose(getattr(ours, name).numpy(), getattr(theirs, name).numpy()), name
    tg.manual_seed(3)
    torch.manual_seed(3)
    # the same normal draws; L @ eps summed in another order than torch's matmul: allclose
    s, t = ours.rsample((5,)), theirs.rsample((5,))
    assert s.shape == tuple(t.shape) and np.allclose(s.numpy(), t.numpy(), rtol=1e-12)
    e = ours.expand((4, 2))
    assert e.batch_shape == (4, 2) and e.log_prob(tg.tensor(X[:, :1])).shape == (4, 2)


def test_mvn_rsample_gradients_match_torch():
    torch = _torch()
    loc, tril = tg.tensor(LOC, requires_grad=True), tg.tensor(TRIL, requires_grad=True)
    tloc, ttril = torch.tensor(LOC, requires_grad=True), torch.tensor(TRIL, requires_grad=True)
    tg.manual_seed(8)
    torch.manual_seed(8)
    (D.MultivariateNormal(loc, scale_tril=tril).rsample((3,)) ** 2).sum().backward()
    (
        torch.distributions.MultivariateNormal(tloc, scale_tril=ttril).rsample((3,)) ** 2
    ).sum().backward()
    assert np.allclose(loc.grad.numpy(), tloc.grad.numpy())
    assert np.allclose(tril.grad.numpy(), ttril.grad.numpy())


def test_mvn_errors_as_torch():
    torch = _torch()
    cases = [
        lambda m: m.distributions.MultivariateNormal(m.tensor(1.0), m.eye(1)),
        lambda m: m.distributions.MultivariateNormal(m.zeros(2)),
        lambda m: m.distributions.MultivariateNormal(m.zeros(2), m.eye(2), scale_tril=m.eye(2)),
        lambda m: m.distributions.MultivariateNormal(m.zeros(2), m.ones(2)),
        lambda m: m.distributions.MultivariateNormal(
            m.zeros(2), m.tensor([[1.0, 2.0], [2.0, 1.0]])
        ),
        lambda m: m.distributions.MultivariateNormal(m.zeros(2), scale_tril=m.ones(2, 2)),
    ]
    for make in cases:
        with pytest.raises(ValueError) as theirs:
            make(torch)
        with pytest.raises(ValueError) as ours:
            make(tg)
        assert str(ours.value).split("(")[0] == str(theirs.value).split("(")[0]


def test_independent_as_torch():
    torch = _torch()

    def fn(m, loc, scale):
        return m.distributions.Independent(m.distributions.Normal(loc, scale), 1)

    ours, theirs = (
        fn(tg, tg.tensor(LOC), tg.tensor(POS)),
        fn(torch, torch.tensor(LOC), torch.tensor(POS)),
    )
    assert ours.batch_shape == tuple(theirs.batch_shape) == (2,)
    assert ours.event_shape == tuple(theirs.event_shape) == (3,)
    assert repr(ours.support) == repr(theirs.support)
    assert ours.has_rsample and not D.Independent(D.Bernoulli(tg.tensor(POS) / 3), 1).has_rsample
    matches_pytorch(lambda m, a, b: fn(m, a, b).log_prob(m.tensor(X)), [LOC, POS])
    matches_pytorch(lambda m, a, b: fn(m, a, b).entropy(), [LOC, POS])
    check_grads(lambda a, b: fn(tg, a, b).log_prob(tg.tensor(X)), LOC, POS, second=False)
    tg.manual_seed(2)
    torch.manual_seed(2)
    assert np.array_equal(ours.sample((2,)).numpy(), theirs.sample((2,)).numpy())
    e = ours.expand((5, 2))
    assert e.batch_shape == (5, 2) and e.event_shape == (3,)
    with pytest.raises(ValueError, match="reinterpreted_batch_ndims"):
        D.Independent(D.Normal(tg.zeros(3), tg.ones(3)), 2)
    with pytest.raises(ValueError):
        ours.log_prob(tg.tensor([[[1.0, 2.0]]]))


def test_mixture_same_family_as_torch():
    torch = _torch()

    def make(m, logits, loc, scale):
        mix = m.distributions.Categorical(logits=logits)
        return m.distributions.MixtureSameFamily(mix, m.distributions.Normal(loc, scale))

    def make_mvn(m, logits, loc, tril):
        mix = m.distributions.Categorical(logits=logits)
        comp = m.distributions.MultivariateNormal(loc, scale_tril=tril.tril())
        return m.distributions.MixtureSameFamily(mix, comp)

    logits = LOC[
        ::-1
    ].copy()  # (the mixture's batch (2,): the components' batch (2, 3) but the last)
    value = X[..., 0][..., :1].repeat(2, -1)[..., :1]
    matches_pytorch(
        lambda m, g, a, b: make(m, g, a, b).log_prob(m.tensor(value)), [logits, LOC, POS]
    )
    matches_pytorch(lambda m, g, a, b: make(m, g, a, b).cdf(m.tensor(value)), [logits, LOC, POS])
    for stat in ("mean", "variance"):
        matches_pytorch(lambda m, g, a, b, s=stat: getattr(make(m, g, a, b), s), [logits, LOC, POS])
    check_grads(
        lambda g, a, b: make(tg, g, a, b).log_prob(tg.tensor(value)), logits, LOC, POS, second=False
    )
    loc3 = LOC[:, None, :].repeat(3, 1)[0]  # (3 components, event 3)
    tril3 = TRIL[[0, 1, 0]]
    matches_pytorch(
        lambda m, g, a, t: make_mvn(m, g, a, t).log_prob(m.tensor(X)), [logits[0], loc3, tril3]
    )
    ours = make(tg, tg.tensor(logits), tg.tensor(LOC), tg.tensor(POS))
    theirs = make(torch, torch.tensor(logits), torch.tensor(LOC), torch.tensor(POS))
    assert ours.batch_shape == tuple(theirs.batch_shape) == (2,)
    assert not ours.has_rsample
    for shape in [(), (4,), (2, 3)]:
        tg.manual_seed(6)
        torch.manual_seed(6)
        assert np.array_equal(ours.sample(shape).numpy(), theirs.sample(shape).numpy())
    with pytest.raises(ValueError) as e_ours:
        D.MixtureSameFamily(D.Categorical(logits=tg.zeros(2)), D.Normal(tg.zeros(3), tg.ones(3)))
    with pytest.raises(ValueError) as e_theirs:
        torch.distributions.MixtureSameFamily(
            torch.distributions.Categorical(logits=torch.zeros(2)),
            torch.distributions.Normal(torch.zeros(3), torch.ones(3)),
        )
    assert str(e_ours.value) == str(e_theirs.value)


def test_kl_mvn_and_independent_values_and_gradients():
    def kl_mvn(m, loc, tril):
        p = m.distributions.MultivariateNormal(loc, scale_tril=tril.tril())
        cov = m.eye(3, dtype=loc.dtype) * 2.0
        q = m.distributions.MultivariateNormal(loc.flip(0), covariance_matrix=cov)
        return m.distributions.kl_divergence(p, q)

    def kl_independent(m, loc, scale):
        p = m.distributions.Independent(m.distributions.Normal(loc, scale), 1)
        q = m.distributions.Independent(m.distributions.Normal(scale, loc.abs() + 1.0), 1)
        return m.distributions.kl_divergence(p, q)

    matches_pytorch(kl_mvn, [LOC, TRIL])
    check_grads(lambda a, t: kl_mvn(tg, a, t), LOC, TRIL, second=False)
    matches_pytorch(kl_independent, [LOC, POS])
    check_grads(lambda a, b: kl_independent(tg, a, b), LOC, POS, second=False)
    p = D.Independent(D.Normal(tg.zeros(2, 3), tg.ones(2, 3)), 1)
    q = D.Independent(D.Normal(tg.zeros(2, 3), tg.ones(2, 3)), 2)
    with pytest.raises(NotImplementedError):
        D.kl_divergence(p, q)
    with pytest.raises(ValueError, match="different event shapes"):
        D.kl_divergence(
            D.MultivariateNormal(tg.zeros(2), tg.eye(2)),
            D.MultivariateNormal(tg.zeros(3), tg.eye(3)),
        )


def test_doc_examples_run():
    flags = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
    mods = [D.multivariate_normal, D.independent, D.mixture_same_family, D.constraints]
    for module in mods:
        names = {"tg": tg, **vars(D)}
        names.update(vars(D.constraints) if module is D.constraints else {})
        result = doctest.testmod(module, extraglobs=names, optionflags=flags)
        assert result.failed == 0, module.__name__
