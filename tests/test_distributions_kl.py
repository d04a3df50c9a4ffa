"""kl_divergence: each registered pair's value and gradients equal to torch's and to finite
differences; torch's NotImplementedError for a pair with no closed form; register_kl's most
specific match.
"""

from __future__ import annotations

import numpy as np
import pytest
from helpers import check_grads
from test_distributions_basic import matches_pytorch

import tapegrad as tg
from tapegrad import distributions as D

A = np.array([[0.7, 1.5, 3.0], [2.0, 0.4, 5.0]])
B = np.array([[2.0, 0.5, 1.2], [0.9, 3.0, 1.1]])


def _torch():
    return pytest.importorskip("torch", reason="compares with PyTorch")


# each: (p from a, b), (q from a, b): parameters kept inside their constraints
PAIRS = {
    "Normal": lambda m, a, b: (m.distributions.Normal(a, b), m.distributions.Normal(b, a)),
    "Bernoulli": lambda m, a, b: (
        m.distributions.Bernoulli(probs=a / (a + b)),
        m.distributions.Bernoulli(logits=b - a),
    ),
    "Categorical": lambda m, a, b: (
        m.distributions.Categorical(probs=a),
        m.distributions.Categorical(logits=b),
    ),
    "OneHotCategorical": lambda m, a, b: (
        m.distributions.OneHotCategorical(logits=a),
        m.distributions.OneHotCategorical(probs=b),
    ),
    "Uniform": lambda m, a, b: (
        m.distributions.Uniform(a, a + b),
        m.distributions.Uniform(a - b, a + 2 * b),
    ),
    "Exponential": lambda m, a, b: (m.distributions.Exponential(a), m.distributions.Exponential(b)),
    "Laplace": lambda m, a, b: (m.distributions.Laplace(a, b), m.distributions.Laplace(b, a)),
    "Beta": lambda m, a, b: (m.distributions.Beta(a, b), m.distributions.Beta(b, a)),
    "Gamma": lambda m, a, b: (m.distributions.Gamma(a, b), m.distributions.Gamma(b, a)),
    "Dirichlet": lambda m, a, b: (m.distributions.Dirichlet(a), m.distributions.Dirichlet(b)),
    "Binomial": lambda m, a, b: (
        m.distributions.Binomial(4, probs=a / (a + b)),
        m.distributions.Binomial(4, logits=a - b),
    ),
    "Poisson": lambda m, a, b: (m.distributions.Poisson(a), m.distributions.Poisson(b)),
    "Geometric": lambda m, a, b: (
        m.distributions.Geometric(probs=a / (a + b)),
        m.distributions.Geometric(probs=b / (a + b)),
    ),
}


@pytest.mark.parametrize("name", sorted(PAIRS))
def test_kl_values_and_gradients(name):
    make = PAIRS[name]

    def fn(m, a, b):
        return m.distributions.kl_divergence(*make(m, a, b))

    matches_pytorch(fn, [A, B])
    check_grads(lambda a, b: fn(tg, a, b), A, B, second=False)
    assert (
        fn(tg, tg.tensor(A), tg.tensor(B)).shape
        == make(tg, tg.tensor(A), tg.tensor(B))[0].batch_shape
    )


def test_kl_infinities_as_torch():
    torch = _torch()
    cases = [
        lambda m: (
            m.distributions.Uniform(m.tensor([0.0, 0.0]), m.tensor([2.0, 1.0])),
            m.distributions.Uniform(m.tensor([0.0, -1.0]), m.tensor([1.0, 3.0])),
        ),
        lambda m: (
            m.distributions.Categorical(probs=m.tensor([[0.5, 0.5, 0.0], [0.2, 0.3, 0.5]])),
            m.distributions.Categorical(probs=m.tensor([[0.5, 0.0, 0.5], [0.2, 0.3, 0.5]])),
        ),
        lambda m: (
            m.distributions.Binomial(m.tensor([5.0, 3.0]), m.tensor([0.3, 0.4])),
            m.distributions.Binomial(m.tensor([3.0, 3.0]), m.tensor([0.5, 0.6])),
        ),
        lambda m: (
            m.distributions.Bernoulli(probs=m.tensor([0.0, 1.0, 0.5, 0.3])),
            m.distributions.Bernoulli(probs=m.tensor([0.5, 0.5, 0.0, 1.0])),
        ),
    ]
    for make in cases:
        ours = D.kl_divergence(*make(tg)).numpy()
        theirs = torch.distributions.kl_divergence(*make(torch)).numpy()
        assert np.array_equal(ours, theirs)


def test_unregistered_pairs_raise_torchs_not_implemented_error():
    torch = _torch()
    for make in (
        lambda m: (
            m.distributions.Categorical(m.tensor([0.5, 0.5])),
            m.distributions.Normal(0.0, 1.0),
        ),
        lambda m: (m.distributions.Geometric(m.tensor(0.5)), m.distributions.Laplace(0.0, 1.0)),
    ):
        with pytest.raises(NotImplementedError) as theirs:
            torch.distributions.kl_divergence(*make(torch))
        with pytest.raises(NotImplementedError) as ours:
            D.kl_divergence(*make(tg))
        assert str(ours.value) == str(theirs.value)


def test_binomial_kl_refuses_a_larger_q_total_count_as_torch():
    torch = _torch()
    with pytest.raises(NotImplementedError) as theirs:
        torch.distributions.kl_divergence(
            torch.distributions.Binomial(2, torch.tensor(0.5)),
            torch.distributions.Binomial(3, torch.tensor(0.5)),
        )
    with pytest.raises(NotImplementedError) as ours:
        D.kl_divergence(D.Binomial(2, tg.tensor(0.5)), D.Binomial(3, tg.tensor(0.5)))
    assert str(ours.value) == str(theirs.value)


def test_register_kl_picks_the_most_specific_match():
    class MyNormal(D.Normal):
        pass

    p, q = MyNormal(0.0, 1.0), D.Normal(1.0, 2.0)
    assert np.allclose(
        D.kl_divergence(p, q).numpy(), D.kl_divergence(D.Normal(0.0, 1.0), q).numpy()
    )

    @D.register_kl(MyNormal, D.Normal)
    def _mine(p, q):
        return tg.tensor(-1.0)

    assert float(D.kl_divergence(p, q)) == -1.0
    assert float(D.kl_divergence(D.Normal(0.0, 1.0), q)) != -1.0
    assert D.kl.kl_divergence is D.kl_divergence
