"""3-D convolution: F.conv3d and nn.Conv3d (a sum over the kernel's depth of 2-D convolutions).

Always on: a closed form (the six nested sums written out), gradcheck and gradgradcheck in float64,
state_dict keys and shapes, repr, padding modes, errors. With torch: values and gradients in input,
weight and bias with copied weights, for stride, padding (ints, 'same', 'valid'), dilation, groups,
padding modes, batched and unbatched.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import tapegrad as tg
import tapegrad.nn.functional as F
from tapegrad import nn

RNG = np.random.default_rng(33)


def test_closed_form() -> None:
    x, w = RNG.standard_normal((1, 2, 4, 3, 5)), RNG.standard_normal((3, 2, 2, 2, 3))
    out = F.conv3d(tg.tensor(x), tg.tensor(w), stride=(2, 1, 1)).numpy()
    want = np.zeros((1, 3, 2, 2, 3))
    for o, d, h, v in itertools.product(range(3), range(2), range(2), range(3)):
        want[0, o, d, h, v] = (x[0, :, 2 * d : 2 * d + 2, h : h + 2, v : v + 3] * w[o]).sum()
    np.testing.assert_allclose(out, want, rtol=1e-12, atol=1e-13)


def test_gradcheck_and_second_order() -> None:
    x = tg.tensor(RNG.standard_normal((2, 2, 3, 3, 4)), requires_grad=True)
    w = tg.tensor(RNG.standard_normal((2, 1, 2, 2, 2)), requires_grad=True)
    b = tg.tensor(RNG.standard_normal(2), requires_grad=True)
    fn = lambda x, w, b: F.conv3d(x, w, b, (1, 2, 1), (1, 0, 1), (2, 1, 1), 2)  # noqa: E731
    assert tg.autograd.gradcheck(fn, (x, w, b))
    assert tg.autograd.gradgradcheck(fn, (x, w, b))


def test_layer_parameters_state_dict_and_repr() -> None:
    conv = nn.Conv3d(4, 6, (1, 3, 3), stride=2, padding=(0, 1, 1), groups=2, bias=False)
    assert conv.weight.shape == (6, 2, 1, 3, 3) and conv.bias is None
    assert list(conv.state_dict()) == ["weight"]
    assert repr(conv) == (
        "Conv3d(4, 6, kernel_size=(1, 3, 3), stride=(2, 2, 2), padding=(0, 1, 1), groups=2, "
        "bias=False)"
    )
    assert list(nn.Conv3d(2, 3, 2).state_dict()) == ["weight", "bias"]
    bound = 1 / np.sqrt(2 * 8)  # (PyTorch's init: both within 1/sqrt(fan_in))
    assert np.abs(nn.Conv3d(2, 3, 2).weight.numpy()).max() <= bound


def test_errors() -> None:
    with pytest.raises(ValueError, match="5-D"):
        F.conv3d(tg.ones(1, 2, 3, 3, 3), tg.ones(2, 2, 3, 3))
    with pytest.raises(ValueError, match=r"\(N, C, D, H, W\)"):
        F.conv3d(tg.ones(2, 3, 3), tg.ones(2, 2, 1, 1, 1))
    with pytest.raises(RuntimeError, match="larger than the padded input"):
        F.conv3d(tg.ones(1, 1, 2, 4, 4), tg.ones(1, 1, 3, 1, 1))
    with pytest.raises(RuntimeError, match="channels"):
        F.conv3d(tg.ones(1, 3, 2, 2, 2), tg.ones(1, 2, 1, 1, 1))
    with pytest.raises(RuntimeError, match="D, H, W"):
        nn.Conv3d(2, 3, 1)(tg.ones(2, 4, 4))
    with pytest.raises(ValueError, match="strided"):
        nn.Conv3d(2, 3, 3, stride=2, padding="same")


CASES = [
    ((2, 4, 5, 6, 7), dict(kernel_size=(3, 2, 3), stride=(2, 1, 2), padding=(1, 2, 0), groups=2)),
    ((4, 5, 6, 5), dict(kernel_size=2, padding="same", dilation=(1, 2, 1))),  # unbatched
    ((2, 4, 4, 5, 5), dict(kernel_size=(1, 3, 3), padding="valid", bias=False)),
    ((1, 4, 4, 5, 6), dict(kernel_size=3, padding=1, padding_mode="reflect")),
    ((1, 4, 3, 4, 4), dict(kernel_size=2, padding=(1, 1, 2), padding_mode="circular")),
    ((1, 4, 3, 4, 4), dict(kernel_size=3, padding=1, padding_mode="replicate", stride=2)),
]


@pytest.mark.parametrize("shape, kw", CASES)
def test_matches_torch(shape: tuple, kw: dict) -> None:
    torch = pytest.importorskip("torch")
    ours = nn.Conv3d(4, 6, **kw).double()
    theirs = torch.nn.Conv3d(4, 6, **kw).double()
    assert repr(ours) == repr(theirs)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    with torch.no_grad():
        for name, p in ours.named_parameters():
            getattr(theirs, name).copy_(torch.tensor(p.numpy()))
    data = RNG.standard_normal(shape)
    x, tx = tg.tensor(data, requires_grad=True), torch.tensor(data, requires_grad=True)
    y, ty = ours(x), theirs(tx)
    assert y.shape == tuple(ty.shape)
    np.testing.assert_allclose(y.detach().numpy(), ty.detach().numpy(), rtol=1e-12, atol=1e-12)
    c = RNG.standard_normal(y.shape)
    (y * tg.tensor(c)).sum().backward()
    (ty * torch.tensor(c)).sum().backward()
    assert x.grad is not None
    np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), rtol=1e-11, atol=1e-12)
    for name, p in ours.named_parameters():
        assert p.grad is not None
        want = getattr(theirs, name).grad.numpy()
        np.testing.assert_allclose(p.grad.numpy(), want, rtol=1e-11, atol=1e-12)
