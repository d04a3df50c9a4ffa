"""Dropout1d/2d/3d, AlphaDropout, FeatureAlphaDropout and their functions: whole channels dropped
(one draw per channel), the kept ones scaled by 1/(1-p); alpha dropout's dropped values and affine
map in closed form, its mean and variance kept; eval mode the identity; gradients the mask;
PyTorch's reprs, warnings and errors. (The draws come from tg.manual_seed's generator, not
PyTorch's.)"""

from __future__ import annotations

import math

import numpy as np
import pytest

import tapegrad as tg

nn, F = tg.nn, tg.nn.functional


@pytest.mark.parametrize(
    "fn, shape, channel_axes",
    [
        (F.dropout1d, (4, 6, 5), 2),
        (F.dropout1d, (6, 5), 1),
        (F.dropout2d, (4, 6, 3, 3), 2),
        (F.dropout2d, (6, 3, 3), 2),  # (read as (N, C, L), as PyTorch, with a warning)
        (F.dropout3d, (2, 6, 2, 2, 2), 2),
        (F.dropout3d, (6, 2, 2, 2), 1),
    ],
)
def test_whole_channels_are_dropped_and_the_rest_scaled(fn, shape, channel_axes):
    tg.manual_seed(0)
    x = tg.tensor(np.random.default_rng(0).uniform(1, 2, shape), requires_grad=True)
    with pytest.warns(UserWarning) if shape == (6, 3, 3) else _nothing():
        out = fn(x, 0.4)
    ratio = out.numpy() / x.numpy()
    per_channel = ratio.reshape(ratio.shape[:channel_axes] + (-1,))
    np.testing.assert_allclose(per_channel.max(-1), per_channel.min(-1))  # (one per channel)
    assert np.all(np.isclose(per_channel, 0.0) | np.isclose(per_channel, 1 / 0.6))
    assert 0 < (per_channel[..., 0] == 0).sum() < per_channel[..., 0].size
    out.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), ratio)  # (the gradient is the mask, scaled)


class _nothing:
    def __enter__(self) -> None:
        return None

    def __exit__(self, *args: object) -> None:
        return None


def test_eval_mode_and_p_zero_are_the_identity_and_p_one_zeroes():
    x = tg.randn(2, 3, 4)
    for layer in (nn.Dropout1d(0.5), nn.AlphaDropout(0.5)):
        assert layer.eval()(x) is x
    assert F.dropout1d(x, 0.0) is x
    assert np.all(F.dropout1d(x, 1.0).numpy() == 0)
    assert np.all(F.alpha_dropout(x, 1.0, training=True).numpy() == 0)
    assert F.alpha_dropout(x, 0.5) is x  # (training defaults to False, as PyTorch)


def test_alpha_dropout_closed_form_and_its_moments():
    tg.manual_seed(1)
    p, limit = 0.3, 1.0507009873554805 * 1.6732632423543772
    x = tg.tensor(np.random.default_rng(1).standard_normal(200_000), requires_grad=True)
    out = F.alpha_dropout(x, p, training=True).numpy()
    a = 1 / math.sqrt((limit**2 * p + 1) * (1 - p))
    b = a * limit * p
    kept = np.isclose(out, a * x.numpy() + b)
    np.testing.assert_allclose(out[~kept], a * -limit + b)
    assert abs(kept.mean() - (1 - p)) < 0.01
    assert abs(out.mean()) < 0.01 and abs(out.var() - 1) < 0.02  # (SELU's fixed point kept)
    F.alpha_dropout(x, p, training=True).sum().backward()


def test_reprs_equal_pytorchs():
    torch = pytest.importorskip("torch")
    for name in ("Dropout1d", "Dropout2d", "Dropout3d", "AlphaDropout", "FeatureAlphaDropout"):
        assert repr(getattr(nn, name)(0.3)) == repr(getattr(torch.nn, name)(0.3))


def test_errors_and_warnings_are_pytorchs():
    with pytest.raises(RuntimeError, match="dropout1d: Expected 2D or 3D input, but received"):
        F.dropout1d(tg.randn(2, 3, 4, 5))
    with pytest.raises(RuntimeError, match="dropout3d: Expected 4D or 5D input"):
        F.dropout3d(tg.randn(2, 3, 4))
    with pytest.raises(ValueError, match="dropout probability has to be between 0 and 1"):
        F.alpha_dropout(tg.randn(3), 1.5)
    with pytest.raises(ValueError, match="dropout probability has to be between 0 and 1"):
        nn.Dropout2d(-0.1)
    with pytest.warns(UserWarning, match="Received a 2-D input to dropout2d"):
        F.dropout2d(tg.randn(2, 3), training=False)
    with pytest.raises(TypeError, match="takes a tapegrad Tensor"):
        F.dropout2d(np.ones((2, 3, 4, 4)))
    with pytest.raises(RuntimeError, match="Feature dropout requires at least 2 dimensions"):
        F.feature_alpha_dropout(tg.randn(3), 0.5, training=True)


def test_docstring_examples_run():
    import doctest

    import tapegrad.nn.dropouts as layers
    import tapegrad.nn.functional_dropout as functional

    for module in (functional, layers):
        flags = doctest.NORMALIZE_WHITESPACE
        result = doctest.testmod(module, extraglobs={"tg": tg, "F": F}, optionflags=flags)
        assert result.attempted > 0 and result.failed == 0, module.__name__


def test_feature_alpha_dropout_drops_whole_channels_with_alpha_dropouts_map():
    tg.manual_seed(3)
    p, limit = 0.4, 1.0507009873554805 * 1.6732632423543772
    a = 1 / math.sqrt((limit**2 * p + 1) * (1 - p))
    b = a * limit * p
    x = tg.tensor(np.random.default_rng(2).standard_normal((6, 40, 3, 2)), requires_grad=True)
    out = F.feature_alpha_dropout(x, p, training=True)
    kept = np.isclose(out.numpy(), a * x.numpy() + b).all(axis=(2, 3))
    dropped = np.isclose(out.numpy(), a * -limit + b).all(axis=(2, 3))
    assert np.all(kept ^ dropped)  # (each channel entirely kept or entirely dropped)
    assert 0.4 < kept.mean() < 0.8
    out.sum().backward()  # (the gradient: a where the channel is kept, 0 where dropped)
    np.testing.assert_allclose(
        x.grad.numpy(), np.broadcast_to((kept * a)[:, :, None, None], x.shape)
    )
    assert nn.FeatureAlphaDropout(0.5).eval()(x) is x
    assert F.feature_alpha_dropout(x, 0.5) is x  # (training defaults to False, as PyTorch)
    assert np.all(F.feature_alpha_dropout(x, 1.0, training=True).numpy() == 0)
