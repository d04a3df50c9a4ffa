"""Bilinear and F.bilinear: closed form, gradcheck to second order in float64, PyTorch's values and
gradients with copied weights, state_dict keys, init bounds, repr, errors.
"""

from __future__ import annotations

import numpy as np
import pytest

import tapegrad as tg
import tapegrad.nn.functional as F
from tapegrad import nn

RNG = np.random.default_rng(11)


def t(*shape: int) -> tg.Tensor:
    return tg.tensor(RNG.standard_normal(shape), requires_grad=True)


def test_closed_form() -> None:
    x1, x2, w, b = t(2, 3), t(2, 4), t(5, 3, 4), t(5)
    out = F.bilinear(x1, x2, w, b).numpy()
    a1, a2, aw, ab = (v.detach().numpy() for v in (x1, x2, w, b))
    want = np.array([[a1[n] @ aw[o] @ a2[n] + ab[o] for o in range(5)] for n in range(2)])
    np.testing.assert_allclose(out, want, rtol=1e-12)
    assert F.bilinear(x1[0], x2[0], w).shape == (5,)  # unbatched, no bias
    assert F.bilinear(t(2, 6, 3), t(2, 6, 4), w).shape == (2, 6, 5)


def test_gradients_to_second_order() -> None:
    args = (t(2, 3), t(2, 4), t(5, 3, 4), t(5))
    assert tg.autograd.gradcheck(F.bilinear, args)
    assert tg.autograd.gradgradcheck(F.bilinear, args)


def test_layer_structure_init_and_repr() -> None:
    layer = nn.Bilinear(3, 4, 5)
    assert repr(layer) == "Bilinear(in1_features=3, in2_features=4, out_features=5, bias=True)"
    assert list(layer.state_dict()) == ["weight", "bias"]
    assert layer.weight.shape == (5, 3, 4) and layer.bias.shape == (5,)
    bound = 1 / np.sqrt(3)
    for p in (layer.weight, layer.bias):
        assert np.abs(p.numpy()).max() <= bound and np.abs(p.numpy()).max() > bound / 2
    plain = nn.Bilinear(3, 4, 5, bias=False, dtype=tg.float64)
    assert plain.bias is None and list(plain.state_dict()) == ["weight"]
    assert plain.weight.dtype == tg.float64
    assert "bias=False" in repr(plain)
    assert plain(tg.ones(2, 3, dtype=tg.float64), tg.ones(2, 4, dtype=tg.float64)).shape == (2, 5)


def test_against_torch_with_copied_weights() -> None:
    torch = pytest.importorskip("torch")
    theirs = torch.nn.Bilinear(3, 4, 5).double()
    ours = nn.Bilinear(3, 4, 5, dtype=tg.float64)
    ours.load_state_dict({k: v.detach().numpy() for k, v in theirs.state_dict().items()})
    assert list(ours.state_dict()) == list(theirs.state_dict())
    a1, a2 = RNG.standard_normal((2, 7, 3)), RNG.standard_normal((2, 7, 4))
    x1, x2 = tg.tensor(a1, requires_grad=True), tg.tensor(a2, requires_grad=True)
    p1, p2 = torch.tensor(a1, requires_grad=True), torch.tensor(a2, requires_grad=True)
    out, want = ours(x1, x2), theirs(p1, p2)
    np.testing.assert_allclose(out.numpy(), want.detach().numpy(), rtol=1e-12)
    weights = RNG.standard_normal(out.shape)
    (out * tg.tensor(weights)).sum().backward()
    (want * torch.tensor(weights)).sum().backward()
    for a, b in [(x1, p1), (x2, p2), (ours.weight, theirs.weight), (ours.bias, theirs.bias)]:
        np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=1e-11)


def test_errors() -> None:
    w = t(5, 3, 4)
    with pytest.raises(ValueError, match="batch dimensions do not match"):
        F.bilinear(t(2, 3), t(3, 4), w)
    with pytest.raises(ValueError, match="input2 size does not match weight size: got 5"):
        F.bilinear(t(2, 3), t(2, 5), w)
    with pytest.raises(ValueError, match="bias size does not match"):
        F.bilinear(t(2, 3), t(2, 4), w, t(4))
    with pytest.raises(ValueError, match="3-D"):
        F.bilinear(t(2, 3), t(2, 4), t(5, 12))
    with pytest.raises(TypeError, match="input1 must be a tapegrad Tensor"):
        F.bilinear(np.ones((2, 3)), t(2, 4), w)
    with pytest.raises(ValueError, match="in1_features must be a positive int"):
        nn.Bilinear(0, 4, 5)


@pytest.mark.parametrize("module", ["bilinear", "functional_bilinear"])
def test_docstring_examples_run(module: str) -> None:
    import doctest
    import importlib

    found = importlib.import_module(f"tapegrad.nn.{module}")
    flags = doctest.NORMALIZE_WHITESPACE
    result = doctest.testmod(found, extraglobs={"tg": tg, "F": tg.nn.functional}, optionflags=flags)
    assert result.attempted > 0 and result.failed == 0
