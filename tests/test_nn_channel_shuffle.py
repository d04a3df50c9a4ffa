"""ChannelShuffle and F.channel_shuffle: the permutation written out, gradients (gradcheck to second
order), PyTorch's values and errors, repr."""

from __future__ import annotations

import numpy as np
import pytest

import tapegrad as tg
import tapegrad.nn.functional as F
from tapegrad import nn


def test_the_permutation_and_its_inverse() -> None:
    x = tg.arange(6.0).reshape(1, 6, 1)
    assert F.channel_shuffle(x, 2).flatten().tolist() == [0.0, 3.0, 1.0, 4.0, 2.0, 5.0]
    assert F.channel_shuffle(F.channel_shuffle(x, 2), 3).flatten().tolist() == list(range(6))
    assert nn.ChannelShuffle(3)(tg.ones(2, 6, 2, 3, 4)).shape == (2, 6, 2, 3, 4)
    assert repr(nn.ChannelShuffle(2)) == "ChannelShuffle(groups=2)"


def test_gradients_to_second_order() -> None:
    x = tg.tensor(np.random.default_rng(0).standard_normal((2, 6, 3)), requires_grad=True)
    weights = tg.tensor(np.arange(36.0).reshape(2, 6, 3))
    assert tg.autograd.gradcheck(lambda t: F.channel_shuffle(t, 3) * weights, (x,))
    assert tg.autograd.gradgradcheck(lambda t: F.channel_shuffle(t, 3) * weights, (x,))


def test_against_torch() -> None:
    torch = pytest.importorskip("torch")
    data = np.random.default_rng(1).standard_normal((2, 12, 3, 2))
    for groups in (1, 2, 3, 4, 6, 12):
        got = nn.ChannelShuffle(groups)(tg.tensor(data))
        want = torch.nn.ChannelShuffle(groups)(torch.tensor(data))
        np.testing.assert_array_equal(got.numpy(), want.numpy())
        assert repr(nn.ChannelShuffle(groups)) == repr(torch.nn.ChannelShuffle(groups))


def test_errors() -> None:
    with pytest.raises(RuntimeError, match="> 2 dims"):
        F.channel_shuffle(tg.ones(1, 6), 2)
    with pytest.raises(RuntimeError, match="divisible by groups. Got 5 channels and 2 groups"):
        F.channel_shuffle(tg.ones(1, 5, 2), 2)
    with pytest.raises(RuntimeError, match="must be positive"):
        F.channel_shuffle(tg.ones(1, 6, 2), 0)
    with pytest.raises(TypeError, match="must be int"):
        F.channel_shuffle(tg.ones(1, 6, 2), 2.0)


@pytest.mark.parametrize("module", ["resampling", "functional_resampling"])
def test_docstring_examples_run(module: str) -> None:
    import doctest
    import importlib

    found = importlib.import_module(f"tapegrad.nn.{module}")
    flags = doctest.NORMALIZE_WHITESPACE
    result = doctest.testmod(found, extraglobs={"tg": tg, "F": tg.nn.functional}, optionflags=flags)
    assert result.attempted > 0 and result.failed == 0
