"""tg.nn.utils's fusion: fuse_conv_bn_eval / fuse_conv_bn_weights and fuse_linear_bn_eval /
fuse_linear_bn_weights give one layer computing bn(layer(x)) in eval mode, the weights equal to
PyTorch's; PyTorch's errors."""

from __future__ import annotations

import numpy as np
import pytest

import tapegrad as tg
from helpers import rand

utils = tg.nn.utils


def _trained_bn(bn, seed=0):
    """Running statistics and affine parameters that are not the defaults."""
    n = bn.num_features
    bn.running_mean.copy_(tg.tensor(rand(n, seed=seed), dtype=bn.running_mean.dtype))
    bn.running_var.copy_(tg.tensor(rand(n, seed=seed + 1) ** 2 + 0.5, dtype=bn.running_var.dtype))
    if bn.weight is not None:
        bn.weight.set_data(rand(n, seed=seed + 2))
        bn.bias.set_data(rand(n, seed=seed + 3))
    return bn.eval()


@pytest.mark.parametrize(
    "conv,bn,transpose,shape",
    [
        (
            lambda: tg.nn.Conv2d(2, 3, 3, dtype=tg.float64),
            lambda: tg.nn.BatchNorm2d(3, dtype=tg.float64),
            False,
            (2, 2, 5, 5),
        ),
        (
            lambda: tg.nn.Conv1d(2, 3, 2, bias=False, dtype=tg.float64),
            lambda: tg.nn.BatchNorm1d(3, affine=False, dtype=tg.float64),
            False,
            (2, 2, 6),
        ),
        (
            lambda: tg.nn.ConvTranspose2d(2, 3, 2, dtype=tg.float64),
            lambda: tg.nn.BatchNorm2d(3, dtype=tg.float64),
            True,
            (2, 2, 4, 4),
        ),
    ],
)
def test_fuse_conv_bn_eval_equals_the_two_layers(conv, bn, transpose, shape):
    c, b = conv().eval(), _trained_bn(bn())
    fused = utils.fuse_conv_bn_eval(c, b, transpose=transpose)
    assert fused is not c and type(fused) is type(c)
    x = tg.tensor(rand(*shape, seed=9))
    np.testing.assert_allclose(fused(x).numpy(), b(c(x)).numpy(), rtol=1e-10, atol=1e-12)
    assert isinstance(fused.weight, tg.nn.Parameter) and isinstance(fused.bias, tg.nn.Parameter)


def test_fuse_linear_bn_eval_equals_the_two_layers():
    for bias in (True, False):
        lin = tg.nn.Linear(4, 3, bias=bias, dtype=tg.float64).eval()
        bn = _trained_bn(tg.nn.BatchNorm1d(3, dtype=tg.float64))
        fused = utils.fuse_linear_bn_eval(lin, bn)
        x = tg.tensor(rand(5, 4, seed=4))
        np.testing.assert_allclose(fused(x).numpy(), bn(lin(x)).numpy(), rtol=1e-10, atol=1e-12)


def test_fused_weights_match_torch():
    torch = pytest.importorskip("torch")
    args = [rand(3, 2, 2, 2), rand(3, seed=1), rand(3, seed=2), rand(3, seed=3) ** 2 + 0.1]
    bn_w, bn_b = rand(3, seed=4), rand(3, seed=5)
    for transpose in (False, True):
        w = args[0] if not transpose else np.swapaxes(args[0], 0, 1).copy()
        ours = utils.fuse_conv_bn_weights(
            tg.tensor(w),
            tg.tensor(args[1]),
            tg.tensor(args[2]),
            tg.tensor(args[3]),
            1e-5,
            tg.tensor(bn_w),
            tg.tensor(bn_b),
            transpose,
        )
        theirs = torch.nn.utils.fuse_conv_bn_weights(
            torch.tensor(w),
            torch.tensor(args[1]),
            torch.tensor(args[2]),
            torch.tensor(args[3]),
            1e-5,
            torch.tensor(bn_w),
            torch.tensor(bn_b),
            transpose,
        )
        for a, b in zip(ours, theirs):
            np.testing.assert_allclose(a.numpy(), b.detach().numpy(), rtol=1e-12)
    lw = rand(3, 4, seed=6)
    ours = utils.fuse_linear_bn_weights(
        tg.tensor(lw),
        None,
        tg.tensor(args[2]),
        tg.tensor(args[3]),
        1e-3,
        tg.tensor(bn_w),
        tg.tensor(bn_b),
    )
    theirs = torch.nn.utils.fuse_linear_bn_weights(
        torch.tensor(lw),
        None,
        torch.tensor(args[2]),
        torch.tensor(args[3]),
        1e-3,
        torch.tensor(bn_w),
        torch.tensor(bn_b),
    )
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(a.numpy(), b.detach().numpy(), rtol=1e-12)


def test_errors_as_torchs():
    torch = pytest.importorskip("torch")
    for lib in (tg, torch):
        with pytest.raises(AssertionError, match="Fusion only for eval!"):
            lib.nn.utils.fuse_conv_bn_eval(lib.nn.Conv2d(2, 3, 3), lib.nn.BatchNorm2d(3))
        with pytest.raises(AssertionError, match="Fusion only for eval!"):
            lib.nn.utils.fuse_linear_bn_eval(lib.nn.Linear(2, 3), lib.nn.BatchNorm1d(3).eval())
        with pytest.raises(AssertionError, match="linear.out_features == bn.num_features"):
            lib.nn.utils.fuse_linear_bn_eval(
                lib.nn.Linear(2, 3).eval(), lib.nn.BatchNorm1d(2).eval()
            )
        no_stats = lib.nn.BatchNorm2d(3, track_running_stats=False).eval()
        with pytest.raises(AssertionError, match="must not be None"):
            lib.nn.utils.fuse_conv_bn_eval(lib.nn.Conv2d(2, 3, 3).eval(), no_stats)
