"""tg.distributions' first family (Normal, Bernoulli, Categorical, OneHotCategorical, Uniform,
Exponential, Laplace): values, shapes and dtypes equal to torch.distributions', samples equal to
torch's on the same seed, gradients checked by finite differences and against torch's, torch's
validation errors.
"""

from __future__ import annotations

import doctest

import numpy as np
import pytest
from helpers import check_grads, leaf, rand

import tapegrad as tg
from tapegrad import distributions as D

POS = np.abs(rand(2, 3, seed=1)) + 0.5  # positive parameters (scales, rates)
LOC = rand(2, 3, seed=2)
VAL = rand(2, 3, seed=3)
PROBS = np.array([[0.2, 0.5, 0.3], [0.6, 0.1, 0.3]])


def _torch():
    return pytest.importorskip("torch", reason="compares with PyTorch")


def matches_pytorch(fn, arrays):
    """fn(m, *leaves) with m = tapegrad and m = torch on float64 leaves: values, shapes, dtypes
    and the gradients of sum(w * out) equal (a parameter the result does not use: no gradient
    in torch, none or zero here)."""
    torch = _torch()
    ours = [leaf(a) for a in arrays]
    theirs = [torch.tensor(a, requires_grad=True) for a in arrays]
    out, ref = fn(tg, *ours), fn(torch, *theirs)
    assert out.shape == tuple(ref.shape) and out.dtype == ref.detach().numpy().dtype
    assert np.allclose(out.detach().numpy(), ref.detach().numpy(), equal_nan=True)
    if not ref.requires_grad:
        return
    w = rand(*ref.shape, seed=9)
    (out * tg.tensor(w)).sum().backward()
    (ref * torch.tensor(w)).sum().backward()
    for x, y in zip(ours, theirs):
        if y.grad is None:
            assert x.grad is None or not x.grad.numpy().any()
        else:
            assert np.allclose(x.grad.numpy(), y.grad.numpy())


# ---- values and gradients (finite differences; torch's on the same inputs) ----------------------
CONTINUOUS = {
    "Normal": lambda m, a, b: m.distributions.Normal(a, b),
    "Laplace": lambda m, a, b: m.distributions.Laplace(a, b),
    "Uniform": lambda m, a, b: m.distributions.Uniform(a - 3.0, a + b),
}


@pytest.mark.parametrize("name", sorted(CONTINUOUS))
@pytest.mark.parametrize("method", ["log_prob", "cdf", "entropy", "mean", "variance", "stddev"])
def test_loc_scale_family_values_and_gradients(name, method):
    make = CONTINUOUS[name]

    def fn(m, a, b):
        d = make(m, a, b)
        if method in ("log_prob", "cdf"):
            value = m.tensor(LOC if name == "Uniform" else VAL)  # (inside Uniform's support)
            return getattr(d, method)(value)
        return d.entropy() if method == "entropy" else getattr(d, method)

    matches_pytorch(fn, [LOC, POS])
    if not (name == "Uniform" and method == "stddev"):
        check_grads(lambda a, b: fn(tg, a, b), LOC, POS, second=False)


@pytest.mark.parametrize("name", ["Normal", "Laplace"])
def test_icdf_inverts_cdf_as_torch(name):
    u = np.array([[0.1, 0.5, 0.9], [0.3, 0.7, 0.99]])

    def fn(m, a, b):
        return getattr(m.distributions, name)(a, b).icdf(m.tensor(u))

    matches_pytorch(fn, [LOC, POS])
    d = getattr(D, name)(tg.tensor(LOC), tg.tensor(POS))
    assert np.allclose(d.cdf(d.icdf(tg.tensor(u))).numpy(), u)


def test_exponential_values_and_gradients():
    value = np.abs(VAL)
    for method in ("log_prob", "cdf", "icdf"):
        arg = np.clip(value, 0, 0.9) if method == "icdf" else value

        def fn(m, r, method=method, arg=arg):
            return getattr(m.distributions.Exponential(r), method)(m.tensor(arg))

        matches_pytorch(fn, [POS])
        check_grads(lambda r, fn=fn: fn(tg, r), POS, second=False)
    for stat in ("mean", "variance", "stddev"):
        matches_pytorch(
            lambda m, r, stat=stat: getattr(m.distributions.Exponential(r), stat), [POS]
        )
    matches_pytorch(lambda m, r: m.distributions.Exponential(r).entropy(), [POS])


@pytest.mark.parametrize("param", ["probs", "logits"])
def test_bernoulli_values_and_gradients(param):
    arr = PROBS if param == "probs" else LOC
    value = (VAL > 0).astype(np.float64)

    def fn(m, p, what):
        d = m.distributions.Bernoulli(**{param: p})
        return d.log_prob(m.tensor(value)) if what == "log_prob" else getattr(d, what)

    for what in ("log_prob", "mean", "variance"):
        matches_pytorch(lambda m, p, what=what: fn(m, p, what), [arr])
        check_grads(lambda p, what=what: fn(tg, p, what), arr, second=False)
    matches_pytorch(lambda m, p: m.distributions.Bernoulli(**{param: p}).entropy(), [arr])
    check_grads(lambda p: D.Bernoulli(**{param: p}).entropy(), arr, second=False)


@pytest.mark.parametrize("param", ["probs", "logits"])
def test_categorical_values_and_gradients(param):
    arr = PROBS if param == "probs" else LOC
    value = np.array([[2, 0], [1, 1], [0, 2]])

    def log_prob(m, p):
        return m.distributions.Categorical(**{param: p}).log_prob(m.tensor(value))

    def entropy(m, p):
        return m.distributions.Categorical(**{param: p}).entropy()

    for fn in (log_prob, entropy):
        matches_pytorch(fn, [arr])
        check_grads(lambda p, fn=fn: fn(tg, p), arr, second=False)
    one_hot = np.eye(3)[value]

    def one_hot_log_prob(m, p):
        return m.distributions.OneHotCategorical(**{param: p}).log_prob(m.tensor(one_hot))

    matches_pytorch(one_hot_log_prob, [arr])
    check_grads(lambda p: one_hot_log_prob(tg, p), arr, second=False)


def test_categorical_shapes_and_statistics_as_torch():
    torch = _torch()
    ours = D.Categorical(probs=tg.tensor(PROBS))
    theirs = torch.distributions.Categorical(probs=torch.tensor(PROBS))
    assert ours.batch_shape == tuple(theirs.batch_shape) == (2,)
    assert ours.event_shape == tuple(theirs.event_shape) == ()
    assert np.array_equal(ours.mode.numpy(), theirs.mode.numpy())
    assert np.isnan(ours.mean.numpy()).all() and ours.mean.shape == tuple(theirs.mean.shape)
    assert np.array_equal(ours.enumerate_support().numpy(), theirs.enumerate_support().numpy())
    assert ours.enumerate_support().dtype == np.int64
    oh = D.OneHotCategorical(probs=tg.tensor(PROBS))
    toh = torch.distributions.OneHotCategorical(probs=torch.tensor(PROBS))
    assert oh.event_shape == tuple(toh.event_shape) == (3,)
    assert np.array_equal(oh.mode.numpy(), toh.mode.numpy())
    assert np.allclose(oh.variance.numpy(), toh.variance.numpy())
    assert np.array_equal(oh.enumerate_support().numpy(), toh.enumerate_support().numpy())
    b = D.Bernoulli(probs=tg.tensor([0.2, 0.5, 0.9]))
    tb = torch.distributions.Bernoulli(probs=torch.tensor([0.2, 0.5, 0.9]))
    assert np.array_equal(b.mode.numpy(), tb.mode.numpy(), equal_nan=True)
    assert np.array_equal(b.enumerate_support().numpy(), tb.enumerate_support().numpy())


# ---- samples: torch's numbers on the same seed --------------------------------------------------
def _pairs(torch):
    p32, loc32, pos32 = (a.astype(np.float32) for a in (PROBS, LOC, POS))
    return [
        (lambda m: m.distributions.Normal(m.tensor(loc32), m.tensor(pos32)), "sample"),
        (lambda m: m.distributions.Normal(m.tensor(loc32), m.tensor(pos32)), "rsample"),
        (lambda m: m.distributions.Normal(m.tensor(LOC), m.tensor(POS)), "rsample"),
        (lambda m: m.distributions.Bernoulli(probs=m.tensor(p32)), "sample"),
        (lambda m: m.distributions.Bernoulli(logits=m.tensor(loc32)), "sample"),
        (lambda m: m.distributions.Categorical(probs=m.tensor(p32)), "sample"),
        (lambda m: m.distributions.Categorical(logits=m.tensor(LOC)), "sample"),
        (lambda m: m.distributions.OneHotCategorical(probs=m.tensor(p32)), "sample"),
        (lambda m: m.distributions.Uniform(m.tensor(loc32), m.tensor(loc32 + pos32)), "rsample"),
        (lambda m: m.distributions.Exponential(m.tensor(pos32)), "rsample"),
        (lambda m: m.distributions.Exponential(m.tensor(POS)), "sample"),
        (lambda m: m.distributions.Laplace(m.tensor(loc32), m.tensor(pos32)), "rsample"),
    ]


@pytest.mark.parametrize("index", range(12))
@pytest.mark.parametrize("sample_shape", [(), (5,), (4, 2)])
def test_samples_are_torchs_bit_for_bit(index, sample_shape):
    torch = _torch()
    make, how = _pairs(torch)[index]
    tg.manual_seed(7)
    torch.manual_seed(7)
    ours = getattr(make(tg), how)(sample_shape)
    theirs = getattr(make(torch), how)(torch.Size(sample_shape))
    assert ours.shape == tuple(theirs.shape)
    assert ours.dtype == theirs.numpy().dtype
    assert np.array_equal(ours.numpy(), theirs.numpy())


def test_rsample_is_reparameterized_and_sample_is_not():
    torch = _torch()
    loc = tg.tensor(LOC, requires_grad=True)
    scale = tg.tensor(POS, requires_grad=True)
    tloc = torch.tensor(LOC, requires_grad=True)
    tscale = torch.tensor(POS, requires_grad=True)
    tg.manual_seed(3)
    torch.manual_seed(3)
    (D.Normal(loc, scale).rsample((4,)) ** 2).sum().backward()
    (torch.distributions.Normal(tloc, tscale).rsample((4,)) ** 2).sum().backward()
    assert np.allclose(loc.grad.numpy(), tloc.grad.numpy())
    assert np.allclose(scale.grad.numpy(), tscale.grad.numpy())
    assert not D.Normal(loc, scale).sample().requires_grad
    for cls in (D.Normal, D.Laplace, D.Uniform, D.Exponential):
        assert cls.has_rsample
    assert not D.Bernoulli.has_rsample and not D.Categorical.has_rsample


@pytest.mark.parametrize("name", ["Laplace", "Uniform", "Exponential"])
def test_rsample_gradients_match_torch(name):
    torch = _torch()

    def make(m, a, b):
        if name == "Exponential":
            return m.distributions.Exponential(b)
        if name == "Uniform":
            return m.distributions.Uniform(a, a + b)
        return m.distributions.Laplace(a, b)

    ours = [tg.tensor(LOC, requires_grad=True), tg.tensor(POS, requires_grad=True)]
    theirs = [torch.tensor(LOC, requires_grad=True), torch.tensor(POS, requires_grad=True)]
    tg.manual_seed(5)
    torch.manual_seed(5)
    out = make(tg, *ours).rsample((3,))
    ref = make(torch, *theirs).rsample((3,))
    assert np.allclose(out.detach().numpy(), ref.detach().numpy())
    (out * out).sum().backward()
    (ref * ref).sum().backward()
    for x, y in zip(ours, theirs):
        if y.grad is not None:
            assert np.allclose(x.grad.numpy(), y.grad.numpy())


# ---- expand, shapes, dtypes ---------------------------------------------------------------------
def test_expand_and_scalar_parameters_as_torch():
    torch = _torch()
    n = D.Normal(0.0, 1.0)
    tn = torch.distributions.Normal(0.0, 1.0)
    assert n.batch_shape == tuple(tn.batch_shape) == ()
    assert n.loc.dtype == tn.loc.numpy().dtype
    e = D.Normal(tg.tensor([0.0, 1.0]), 2.0).expand((3, 2))
    assert e.batch_shape == (3, 2) and e.scale.shape == (3, 2)
    assert np.allclose(e.log_prob(tg.zeros(3, 2)).numpy()[2], e.log_prob(tg.zeros(2)).numpy())
    c = D.Categorical(logits=tg.zeros(3)).expand((4,))
    assert c.batch_shape == (4,) and c.logits.shape == (4, 3)
    assert D.Bernoulli(0.3).batch_shape == () and D.Exponential(2.0).sample((2,)).shape == (2,)
    # Python numbers become tensors of the other parameters' dtype, else the default float dtype
    assert D.Normal(0, 1).loc.dtype == torch.distributions.Normal(0, 1).loc.numpy().dtype
    assert D.Normal(tg.zeros(2, dtype=tg.float64), 1).scale.dtype == np.float64


# ---- validation: torch's errors -----------------------------------------------------------------
def test_bad_parameters_raise_torchs_value_errors():
    torch = _torch()
    cases = [
        lambda m: m.distributions.Normal(m.tensor([0.0]), m.tensor([-1.0])),
        lambda m: m.distributions.Bernoulli(probs=m.tensor([1.5])),
        lambda m: m.distributions.Categorical(probs=m.tensor([-0.1, 1.1])),
        lambda m: m.distributions.Exponential(m.tensor([0.0])),
        lambda m: m.distributions.Uniform(m.tensor([1.0]), m.tensor([0.0])),
        lambda m: m.distributions.Bernoulli(probs=m.tensor([0.5]), logits=m.tensor([0.0])),
        lambda m: m.distributions.Categorical(probs=m.tensor(0.5)),
    ]
    for make in cases:
        with pytest.raises(ValueError) as theirs:
            make(torch)
        with pytest.raises(ValueError) as ours:
            make(tg)
        assert str(ours.value).split("(")[0] == str(theirs.value).split("(")[0]


def test_values_outside_the_support_raise_torchs_value_error():
    torch = _torch()
    cases = [
        (lambda m: m.distributions.Exponential(m.tensor([1.0])), [-1.0]),
        (lambda m: m.distributions.Bernoulli(probs=m.tensor([0.3])), [0.5]),
        (lambda m: m.distributions.Categorical(probs=m.tensor([0.3, 0.7])), 2),
        (lambda m: m.distributions.Uniform(m.tensor([0.0]), m.tensor([1.0])), [2.0]),
        (lambda m: m.distributions.Normal(m.tensor([0.0, 0.0]), m.tensor([1.0, 1.0])), [[0.0] * 3]),
    ]
    for make, value in cases:
        with pytest.raises(ValueError) as theirs:
            make(torch).log_prob(torch.tensor(value))
        with pytest.raises(ValueError) as ours:
            make(tg).log_prob(tg.tensor(value))
        assert str(ours.value).split(":")[0] == str(theirs.value).split(":")[0]


def test_validation_can_be_turned_off():
    d = D.Normal(tg.tensor([0.0]), tg.tensor([-1.0]), validate_args=False)
    assert np.isnan(d.log_prob(tg.tensor([0.0])).numpy()).all()
    D.Distribution.set_default_validate_args(False)
    try:
        D.Exponential(tg.tensor([-1.0]))
    finally:
        D.Distribution.set_default_validate_args(True)
    with pytest.raises(ValueError):
        D.Exponential(tg.tensor([-1.0]))
    with pytest.raises(ValueError):
        D.Distribution.set_default_validate_args(2)  # type: ignore[arg-type]


def test_constraints_check_as_torch():
    torch = _torch()
    C, TC = D.constraints, torch.distributions.constraints
    x = np.array([[-1.0, 0.0, 0.5], [1.0, 2.0, np.nan]])
    for name in ("real", "positive", "nonnegative", "unit_interval", "boolean", "simplex"):
        ours = getattr(C, name).check(tg.tensor(x)).numpy()
        theirs = getattr(TC, name).check(torch.tensor(x)).numpy()
        assert np.array_equal(ours, theirs), name
        assert repr(getattr(C, name)) == repr(getattr(TC, name))
    assert repr(C.independent(C.real, 1)) == repr(TC.independent(TC.real, 1))
    assert repr(C.interval(0.0, 2.0)) == repr(TC.interval(0.0, 2.0))
    assert C.is_dependent(C.dependent) and not C.is_dependent(C.real)
    with pytest.raises(ValueError):
        C.dependent.check(tg.tensor(x))


def test_doc_examples_run():
    flags = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
    mods = [D, D.constraints, D.utils, D.kl, D.distribution, D.exp_family, D.normal, D.bernoulli]
    mods += [D.categorical, D.one_hot_categorical, D.uniform, D.exponential, D.laplace]
    for module in mods:
        result = doctest.testmod(
            module,
            extraglobs={"tg": tg, "constraints": D.constraints, **vars(D)},
            optionflags=flags,
        )
        assert result.failed == 0, module.__name__
