"""tg.nn.utils.convert_conv2d/3d_weight_memory_format (the format checked, values kept) and
skip_init (PyTorch's checks; the module made as usual, no meta device)."""

from __future__ import annotations

import numpy as np
import pytest

import tapegrad as tg

utils = tg.nn.utils


def test_convert_weight_memory_format():
    net = tg.nn.Sequential(tg.nn.Conv2d(2, 3, 3), tg.nn.ReLU(), tg.nn.Conv3d(2, 3, 3))
    before = [p.numpy().copy() for p in net.parameters()]
    assert utils.convert_conv2d_weight_memory_format(net, tg.channels_last) is net
    assert utils.convert_conv3d_weight_memory_format(net, tg.channels_last_3d) is net
    for p, b in zip(net.parameters(), before):
        np.testing.assert_array_equal(p.numpy(), b)
    assert isinstance(net[0].weight, tg.nn.Parameter)
    with pytest.raises(RuntimeError, match="required rank 5 tensor to use channels_last_3d"):
        utils.convert_conv2d_weight_memory_format(net, tg.channels_last_3d)


def test_convert_weight_memory_format_error_as_torchs():
    torch = pytest.importorskip("torch")
    with pytest.raises(RuntimeError, match="required rank 5 tensor to use channels_last_3d"):
        torch.nn.utils.convert_conv2d_weight_memory_format(
            torch.nn.Conv2d(2, 3, 3), torch.channels_last_3d
        )


def test_skip_init():
    lin = utils.skip_init(tg.nn.Linear, 2, 3, bias=False)
    assert isinstance(lin, tg.nn.Linear) and lin.weight.shape == (3, 2) and lin.bias is None
    with pytest.raises(RuntimeError, match="Module must support a 'device' arg"):
        utils.skip_init(tg.nn.ReLU)
    with pytest.raises(RuntimeError, match="Expected a Module"):
        utils.skip_init(int)


def test_skip_init_errors_as_torchs():
    torch = pytest.importorskip("torch")
    with pytest.raises(RuntimeError, match="Module must support a 'device' arg"):
        torch.nn.utils.skip_init(torch.nn.ReLU)
    with pytest.raises(RuntimeError, match="Expected a Module"):
        torch.nn.utils.skip_init(int)
