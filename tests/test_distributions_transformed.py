"""TransformedDistribution, its transforms (Exp, Affine, Sigmoid, Tanh, Compose) and LogNormal:
values, log |det J|, gradients and samples equal to torch.distributions' (and to finite
differences); the change of variables checked by integrating the density.
"""

from __future__ import annotations

import doctest

import numpy as np
import pytest
from helpers import check_grads
from test_distributions_basic import matches_pytorch

import tapegrad as tg
from tapegrad import distributions as D

LOC = np.array([[0.3, -1.2, 0.5], [1.0, 0.0, -0.4]])
POS = np.array([[0.8, 1.5, 0.6], [1.1, 0.4, 2.0]])
X = np.array([[0.2, -0.7, 1.3], [-1.5, 0.4, 0.9]])


def _torch():
    return pytest.importorskip("torch", reason="compares with PyTorch")


TRANSFORMS = {
    "Exp": (lambda m, a, b: m.distributions.transforms.ExpTransform(), X),
    "Affine": (lambda m, a, b: m.distributions.transforms.AffineTransform(a, b), X),
    "AffineNumbers": (lambda m, a, b: m.distributions.transforms.AffineTransform(1.0, -2.0), X),
    "Sigmoid": (lambda m, a, b: m.distributions.transforms.SigmoidTransform(), X),
    "Tanh": (lambda m, a, b: m.distributions.transforms.TanhTransform(), X),
}


@pytest.mark.parametrize("name", sorted(TRANSFORMS))
def test_transform_values_inverse_and_jacobian(name):
    make, x = TRANSFORMS[name]

    def forward(m, a, b, xs):
        return make(m, a, b)(xs)

    def jacobian(m, a, b, xs):
        t = make(m, a, b)
        return t.log_abs_det_jacobian(xs, t(xs))

    matches_pytorch(forward, [LOC, POS, x])
    matches_pytorch(jacobian, [LOC, POS, x])
    check_grads(lambda a, b, xs: jacobian(tg, a, b, xs), LOC, POS, x, second=False)
    t = make(tg, tg.tensor(LOC), tg.tensor(POS))
    y = t(tg.tensor(x))
    assert np.allclose(t.inv(y).numpy(), x)
    assert np.allclose(
        t.inv.log_abs_det_jacobian(y, tg.tensor(x)).numpy(),
        -jacobian(tg, tg.tensor(LOC), tg.tensor(POS), tg.tensor(x)).numpy(),
    )
    torch = _torch()
    tt = make(torch, torch.tensor(LOC), torch.tensor(POS))
    assert repr(t.domain) == repr(tt.domain) and repr(t.codomain) == repr(tt.codomain)
    assert t.bijective == tt.bijective
    # the log |det J| is log |dy/dx|: central differences of the transform elementwise
    h = 1e-6
    numeric = (t(tg.tensor(x + h)).numpy() - t(tg.tensor(x - h)).numpy()) / (2 * h)
    assert np.allclose(
        np.log(np.abs(numeric)),
        jacobian(tg, tg.tensor(LOC), tg.tensor(POS), tg.tensor(x)).numpy(),
        atol=1e-6,
    )


def _tanh_normal(m, a, b):
    base = m.distributions.Normal(a, b)
    transforms = [
        m.distributions.transforms.TanhTransform(),
        m.distributions.transforms.AffineTransform(0.5, 2.0),
    ]
    return m.distributions.TransformedDistribution(base, transforms)


def _logit_normal(m, a, b):
    base = m.distributions.Normal(a, b)
    return m.distributions.TransformedDistribution(
        base, m.distributions.transforms.SigmoidTransform()
    )


def _affine_event(m, a, b):
    base = m.distributions.Normal(a, b)
    t = m.distributions.transforms.AffineTransform(a, b, event_dim=1)
    return m.distributions.TransformedDistribution(base, [t])


CASES = {
    "TanhAffine": (_tanh_normal, np.tanh(X) * 2.0 + 0.5),
    "Sigmoid": (_logit_normal, 1 / (1 + np.exp(-X))),
    "AffineEvent": (_affine_event, X),
    "LogNormal": (lambda m, a, b: m.distributions.LogNormal(a, b), np.exp(X)),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_transformed_log_prob_and_shapes_as_torch(name):
    make, value = CASES[name]
    matches_pytorch(lambda m, a, b: make(m, a, b).log_prob(m.tensor(value)), [LOC, POS])
    check_grads(lambda a, b: make(tg, a, b).log_prob(tg.tensor(value)), LOC, POS, second=False)
    torch = _torch()
    ours, theirs = (
        make(tg, tg.tensor(LOC), tg.tensor(POS)),
        make(torch, torch.tensor(LOC), torch.tensor(POS)),
    )
    assert ours.batch_shape == tuple(theirs.batch_shape)
    assert ours.event_shape == tuple(theirs.event_shape)
    assert repr(ours.support) == repr(theirs.support)
    for shape in [(), (3,)]:
        tg.manual_seed(9)
        torch.manual_seed(9)
        s, t = ours.rsample(shape), theirs.rsample(shape)
        assert s.shape == tuple(t.shape) and np.allclose(s.numpy(), t.numpy())
        tg.manual_seed(9)
        torch.manual_seed(9)
        assert np.allclose(ours.sample(shape).numpy(), theirs.sample(shape).numpy())


def test_cdf_and_icdf_with_a_decreasing_transform_as_torch():
    def make(m, a, b):
        t = m.distributions.transforms.AffineTransform(0.0, -2.0)
        return m.distributions.TransformedDistribution(m.distributions.Normal(a, b), t)

    matches_pytorch(lambda m, a, b: make(m, a, b).cdf(m.tensor(X)), [LOC, POS])
    u = np.array([[0.1, 0.5, 0.9], [0.3, 0.7, 0.2]])
    matches_pytorch(lambda m, a, b: make(m, a, b).icdf(m.tensor(u)), [LOC, POS])


def test_lognormal_statistics_and_kl_free_entropy_as_torch():
    for stat in ("mean", "mode", "variance"):
        matches_pytorch(
            lambda m, a, b, s=stat: getattr(m.distributions.LogNormal(a, b), s), [LOC, POS]
        )
    matches_pytorch(lambda m, a, b: m.distributions.LogNormal(a, b).entropy(), [LOC, POS])
    matches_pytorch(
        lambda m, a, b: m.distributions.LogNormal(a, b).cdf(m.tensor(np.exp(X))), [LOC, POS]
    )
    e = D.LogNormal(tg.tensor([0.0, 1.0]), 1.0).expand((3, 2))
    assert isinstance(e, D.LogNormal) and e.batch_shape == (3, 2) and e.loc.shape == (3, 2)
    with pytest.raises(ValueError):
        D.LogNormal(tg.tensor([0.0]), tg.tensor([1.0])).log_prob(tg.tensor([-1.0]))
    with pytest.raises(ValueError):
        D.LogNormal(tg.tensor([0.0]), tg.tensor([-1.0]))


def test_the_density_integrates_to_one():
    # the change of variables: the transformed density's integral over its support is 1
    d = _tanh_normal(tg, tg.tensor(0.3, dtype=tg.float64), tg.tensor(0.8, dtype=tg.float64))
    y = np.linspace(-1.5 + 1e-9, 2.5 - 1e-9, 400001)
    p = np.exp(d.log_prob(tg.tensor(y)).numpy())
    assert abs(np.trapezoid(p, y) - 1) < 1e-4


def test_bad_transforms_raise_torchs_value_error():
    with pytest.raises(ValueError, match="transforms must be"):
        D.TransformedDistribution(D.Normal(0.0, 1.0), "exp")
    with pytest.raises(ValueError, match="transforms must be"):
        D.TransformedDistribution(D.Normal(0.0, 1.0), [D.ExpTransform(), "exp"])


def test_doc_examples_run():
    flags = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
    for module in (D.transforms, D.transformed_distribution, D.log_normal):
        result = doctest.testmod(module, extraglobs={"tg": tg, **vars(D)}, optionflags=flags)
        assert result.failed == 0, module.__name__
