"""Issue 16's bad inputs for a CNN, in one place: wrong channel count, kernel larger than the padded
input, non-integer stride, a 2-D input to Conv2d (an unbatched 3-D one works), an out-of-range index
to Embedding, BatchNorm in train mode on a batch of one. Each is a clear error naming the layer and
the shapes; the nearby inputs PyTorch accepts are accepted, with PyTorch's values."""

from __future__ import annotations

import re
import warnings

import numpy as np
import pytest

import tapegrad as tg
import tapegrad.nn.functional as F
from tapegrad import nn

CONV = r"Conv2d\(3, 8, kernel_size=\(3, 3\), stride=\(1, 1\)\)"  # the layer's repr names it


def raises(exc: type, pattern: str, call) -> None:
    with pytest.raises(exc, match=pattern):
        call()


def test_wrong_channel_count() -> None:
    conv = nn.Conv2d(3, 8, 3)
    raises(
        RuntimeError,
        CONV + r": expected .*3 channels.*\(2, 4, 8, 8\) with 4",
        lambda: conv(tg.ones(2, 4, 8, 8)),
    )
    raises(
        RuntimeError,
        CONV + r": expected .*3 channels \(axis 0\).*\(4, 8, 8\)",
        lambda: conv(tg.ones(4, 8, 8)),
    )
    raises(
        RuntimeError,
        r"conv2d: weight of shape \(8, 3, 3, 3\).*3 channels.*\(2, 4, 8, 8\) with 4",
        lambda: F.conv2d(tg.ones(2, 4, 8, 8), conv.weight),
    )
    raises(
        RuntimeError,
        r"BatchNorm2d: expected 3 channels.*\(2, 4, 5, 5\) with 4",
        lambda: nn.BatchNorm2d(3)(tg.ones(2, 4, 5, 5)),
    )
    raises(ValueError, r"Linear.*size 128.*\(2, 96\)", lambda: nn.Linear(128, 10)(tg.ones(2, 96)))


def test_kernel_larger_than_the_padded_input() -> None:
    pattern = CONV + r": the kernel is larger than the padded input: padded input size per channel "
    raises(
        RuntimeError,
        pattern + r"2 x 2 \(input shape \(1, 3, 2, 2\)\), kernel size 3 x 3",
        lambda: nn.Conv2d(3, 8, 3)(tg.ones(1, 3, 2, 2)),
    )
    raises(
        RuntimeError,
        r"Conv1d\(2, 2, kernel_size=\(5,\).*padded input size per channel 4 .*kernel size 5",
        lambda: nn.Conv1d(2, 2, 5)(tg.ones(1, 2, 4)),
    )
    raises(
        RuntimeError,
        r"conv2d: .*spanning 5 x 5 with dilation \(2, 2\)",
        lambda: F.conv2d(tg.ones(1, 1, 4, 4), tg.ones(1, 1, 3, 3), dilation=2),
    )
    raises(
        RuntimeError,
        r"MaxPool2d\(kernel_size=3.*\(1, 3, 2, 2\) is too small",
        lambda: nn.MaxPool2d(3)(tg.ones(1, 3, 2, 2)),
    )
    # padding that makes room is fine: a 3x3 kernel over a 1x1 image padded to 3x3
    out = nn.Conv2d(3, 8, 3, padding=1)(tg.ones(2, 3, 1, 1))
    assert out.shape == (2, 8, 1, 1)


@pytest.mark.parametrize("stride", [1.5, 2.0, (1, 1.5), "2", True])
def test_non_integer_stride(stride) -> None:
    got = re.escape(repr(stride))
    raises(
        TypeError,
        rf"Conv2d: stride must be an int or a tuple of 2 ints, got {got}",
        lambda: nn.Conv2d(3, 8, 3, stride=stride),
    )
    x, w = tg.ones(1, 3, 6, 6), tg.ones(8, 3, 3, 3)
    raises(TypeError, r"conv2d: stride must be an int", lambda: F.conv2d(x, w, stride=stride))
    raises(TypeError, r"MaxPool2d: stride must be an int", lambda: nn.MaxPool2d(2, stride=stride))
    raises(
        TypeError, r"avg_pool2d: stride must be an int", lambda: F.avg_pool2d(x, 2, stride=stride)
    )


def test_integer_strides_of_any_integer_type() -> None:
    conv = nn.Conv2d(1, 1, 2, stride=np.int64(2), bias=False)
    assert conv.stride == (2, 2) and type(conv.stride[0]) is int
    assert conv(tg.ones(1, 1, 6, 6)).shape == (1, 1, 3, 3)


def test_two_dimensional_input_to_conv2d() -> None:
    raises(
        RuntimeError,
        CONV + r": expected a 4-D \(N, C, H, W\) batched or 3-D \(C, H, W\) unbatched input, "
        r"got shape \(8, 8\)$",
        lambda: nn.Conv2d(3, 8, 3)(tg.ones(8, 8)),
    )
    # a grey image with its channel axis missing: the message says how to add it
    raises(
        RuntimeError,
        r"got shape \(8, 8\); .* x\.unsqueeze\(0\)",
        lambda: nn.Conv2d(1, 8, 3)(tg.ones(8, 8)),
    )
    raises(
        RuntimeError,
        r"Conv2d.*got shape \(1, 1, 3, 8, 8\)",
        lambda: nn.Conv2d(3, 8, 3)(tg.ones(1, 1, 3, 8, 8)),
    )


def test_unbatched_three_dimensional_input_works() -> None:
    tg.manual_seed(0)
    conv = nn.Conv2d(3, 4, 3, padding=1)
    batch = tg.randn(2, 3, 5, 5)
    np.testing.assert_allclose(conv(batch[1]).numpy(), conv(batch).numpy()[1], rtol=1e-6)
    pool = nn.MaxPool2d(2)
    np.testing.assert_array_equal(pool(batch[0]).numpy(), pool(batch).numpy()[0])


def test_out_of_range_index_to_embedding() -> None:
    emb = nn.Embedding(10, 3)
    raises(
        IndexError,
        r"Embedding: index 10 is out of range for 10 embeddings \(valid indices are 0..9\) in "
        r"indices of shape \(2, 2\)",
        lambda: emb(tg.tensor([[1, 2], [3, 10]])),
    )
    raises(IndexError, r"Embedding: index -1 is out of range", lambda: emb(tg.tensor([-1])))
    raises(
        IndexError,
        r"embedding: index 3 is out of range for 3",
        lambda: F.embedding(tg.tensor([3]), tg.ones(3, 2)),
    )
    raises(TypeError, r"Embedding: indices must be integers.*float32", lambda: emb(tg.ones(2)))


def test_batch_norm_in_train_mode_on_a_batch_of_one() -> None:
    message = r"{}: Expected more than 1 value per channel when training, got input size {}"
    bn1, bn2 = nn.BatchNorm1d(3), nn.BatchNorm2d(3)
    raises(ValueError, message.format("BatchNorm1d", r"\(1, 3\)"), lambda: bn1(tg.ones(1, 3)))
    raises(ValueError, message.format("BatchNorm1d", r"\(1, 3, 1\)"), lambda: bn1(tg.ones(1, 3, 1)))
    raises(
        ValueError,
        message.format("BatchNorm2d", r"\(1, 3, 1, 1\)"),
        lambda: bn2(tg.ones(1, 3, 1, 1)),
    )
    assert bn1.num_batches_tracked.item() == 0 and bn2.num_batches_tracked.item() == 0
    # one image has H * W values per channel: batch statistics exist (PyTorch accepts it too)
    x = tg.tensor(np.arange(12.0, dtype=np.float32).reshape(1, 3, 2, 2))
    out = bn2(x).numpy()
    expected = (np.array([0, 1, 2, 3]) - 1.5) / np.sqrt(1.25 + 1e-5)  # each channel: 4 values
    np.testing.assert_allclose(out.reshape(3, 4), np.tile(expected, (3, 1)), rtol=1e-5)
    assert bn2.num_batches_tracked.item() == 1
    assert bn1.eval()(tg.ones(1, 3)).shape == (1, 3)  # eval mode uses the running statistics


def test_batch_norm_on_an_empty_batch_keeps_the_running_statistics() -> None:
    bn = nn.BatchNorm2d(3)
    bn(tg.randn(4, 3, 2, 2))
    before = bn.running_mean.numpy().copy(), bn.running_var.numpy().copy()
    x = tg.ones(0, 3, 2, 2, requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no 0/0 warning either
        out = bn(x)
        out.sum().backward()
    assert out.shape == (0, 3, 2, 2)
    np.testing.assert_array_equal(bn.running_mean.numpy(), before[0])  # not nan
    np.testing.assert_array_equal(bn.running_var.numpy(), before[1])
    assert bn.num_batches_tracked.item() == 2  # counted, as PyTorch counts it
    assert bn.weight.grad.tolist() == [0.0, 0.0, 0.0] and x.grad.shape == (0, 3, 2, 2)


def test_pytorch_refuses_and_accepts_the_same_inputs() -> None:
    torch = pytest.importorskip("torch", reason="PyTorch's behaviour needs torch")
    refused = [
        (lambda m: m.Conv2d(3, 8, 3), (2, 4, 8, 8)),
        (lambda m: m.Conv2d(3, 8, 3), (1, 3, 2, 2)),
        (lambda m: m.Conv2d(3, 8, 3, stride=1.5), (1, 3, 8, 8)),
        (lambda m: m.Conv2d(3, 8, 3), (8, 8)),
        (lambda m: m.BatchNorm1d(3), (1, 3)),
        (lambda m: m.BatchNorm2d(3), (1, 3, 1, 1)),
    ]
    for make, shape in refused:
        with pytest.raises((TypeError, ValueError, RuntimeError)):
            make(torch.nn)(torch.ones(shape))
        with pytest.raises((TypeError, ValueError, RuntimeError)):
            make(nn)(tg.ones(*shape))
    with pytest.raises(IndexError):
        torch.nn.Embedding(10, 3)(torch.tensor([10]))
    accepted = [
        (lambda m: m.Conv2d(3, 8, 3, padding=1), (2, 3, 1, 1)),
        (lambda m: m.Conv2d(3, 8, 3), (3, 5, 5)),
        (lambda m: m.BatchNorm2d(3), (1, 3, 2, 2)),
        (lambda m: m.BatchNorm2d(3), (0, 3, 2, 2)),
    ]
    rng = np.random.default_rng(0)
    for make, shape in accepted:
        theirs, ours = make(torch.nn).double(), make(nn).double()
        ours.load_state_dict({k: v.numpy() for k, v in theirs.state_dict().items()})
        x = rng.standard_normal(shape)
        expected = theirs(torch.tensor(x)).detach().numpy()
        np.testing.assert_allclose(ours(tg.tensor(x)).numpy(), expected, rtol=1e-10, atol=1e-12)
        for name, buffer in theirs.named_buffers():
            np.testing.assert_allclose(dict(ours.named_buffers())[name].numpy(), buffer.numpy())
