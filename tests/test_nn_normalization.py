"""BatchNorm1d/2d, LayerNorm and F.batch_norm / F.layer_norm: closed forms in NumPy, running
statistics step by step, finite differences to second order, errors, and PyTorch parity."""

from __future__ import annotations

import numpy as np
import pytest

import tapegrad as tg
from tapegrad.autograd import gradcheck, gradgradcheck

nn, F = tg.nn, tg.nn.functional


def _bn_reference(x: np.ndarray, w: np.ndarray, b: np.ndarray, eps: float = 1e-5) -> tuple:
    """Training-mode batch norm in NumPy: (output, batch mean, biased var, unbiased var)."""
    axes = (0,) + tuple(range(2, x.ndim))
    shape = (1, -1) + (1,) * (x.ndim - 2)
    mean, var = x.mean(axes), x.var(axes)
    n = x.size // x.shape[1]
    out = (x - mean.reshape(shape)) / np.sqrt(var.reshape(shape) + eps)
    return out * w.reshape(shape) + b.reshape(shape), mean, var, var * n / (n - 1)


@pytest.mark.parametrize(
    "layer, shape",
    [("BatchNorm1d", (6, 3)), ("BatchNorm1d", (4, 3, 5)), ("BatchNorm2d", (3, 3, 2, 4))],
)
@pytest.mark.parametrize("momentum", [0.1, 0.5, None])
def test_batch_norm_running_statistics_over_several_steps_then_eval(layer, shape, momentum):
    rng = np.random.default_rng(0)
    bn = getattr(nn, layer)(3, momentum=momentum).double()
    w, b = rng.standard_normal(3), rng.standard_normal(3)
    bn.weight.set_data(w)
    bn.bias.set_data(b)
    running_mean, running_var, batches = np.zeros(3), np.ones(3), []
    for step in range(4):
        x = rng.standard_normal(shape) * (step + 1) + step
        out = bn(tg.tensor(x))
        want, mean, _, unbiased = _bn_reference(x, w, b)
        assert np.allclose(out.numpy(), want, atol=1e-12)
        batches.append((mean, unbiased))
        if momentum is None:  # cumulative moving average: the plain mean over the batches so far
            running_mean = np.mean([m for m, _ in batches], axis=0)
            running_var = np.mean([v for _, v in batches], axis=0)
        else:
            running_mean = (1 - momentum) * running_mean + momentum * mean
            running_var = (1 - momentum) * running_var + momentum * unbiased
        assert np.allclose(bn.running_mean.numpy(), running_mean, atol=1e-12)
        assert np.allclose(bn.running_var.numpy(), running_var, atol=1e-12)
    assert bn.num_batches_tracked.item() == 4 and bn.num_batches_tracked.dtype == np.int64
    bn.eval()
    x = rng.standard_normal(shape)
    out = bn(tg.tensor(x))
    per_channel = (1, -1) + (1,) * (len(shape) - 2)
    want = (x - running_mean.reshape(per_channel)) / np.sqrt(
        running_var.reshape(per_channel) + 1e-5
    )
    assert np.allclose(out.numpy(), want * w.reshape(per_channel) + b.reshape(per_channel))
    assert np.allclose(bn.running_mean.numpy(), running_mean)  # eval never updates them
    assert bn.num_batches_tracked.item() == 4


def test_batch_norm_layout_init_and_options():
    bn = nn.BatchNorm2d(4)
    assert [n for n, _ in bn.named_parameters()] == ["weight", "bias"]
    assert [n for n, _ in bn.named_buffers()] == [
        "running_mean",
        "running_var",
        "num_batches_tracked",
    ]
    assert list(bn.state_dict()) == [
        "weight",
        "bias",
        "running_mean",
        "running_var",
        "num_batches_tracked",
    ]
    assert np.array_equal(bn.weight.numpy(), np.ones(4)) and np.array_equal(
        bn.bias.numpy(), np.zeros(4)
    )
    assert bn.weight.dtype == np.float32 and bn.running_var.dtype == np.float32
    assert bn.num_batches_tracked.shape == ()
    plain = nn.BatchNorm1d(3, affine=False, track_running_stats=False)
    assert plain.weight is None and plain.bias is None and plain.running_mean is None
    assert list(plain.state_dict()) == [] and list(plain.parameters()) == []
    x = tg.tensor([[1.0, 2.0, 3.0], [3.0, 6.0, 9.0]])
    for mode in (True, False):  # no running statistics: batch statistics in eval() too
        out = plain.train(mode)(x).numpy()
        assert np.allclose(out, [[-1, -1, -1], [1, 1, 1]], atol=1e-4)
    no_bias = nn.BatchNorm1d(3, bias=False)
    assert no_bias.bias is None and [n for n, _ in no_bias.named_parameters()] == ["weight"]
    assert repr(nn.BatchNorm1d(3, momentum=None)) == (
        "BatchNorm1d(3, eps=1e-05, momentum=None, affine=True, bias=True, track_running_stats=True)"
    )
    bn.running_mean.fill_(5.0)
    bn.num_batches_tracked.fill_(7)
    bn.reset_parameters()
    assert bn.running_mean.numpy().max() == 0 and bn.num_batches_tracked.item() == 0


def test_batch_norm_gradients_to_second_order_in_float64():
    rng = np.random.default_rng(1)
    for shape in [(4, 3), (2, 3, 3), (2, 2, 2, 2)]:
        x = tg.tensor(rng.standard_normal(shape), requires_grad=True)
        c = shape[1]
        w = tg.tensor(rng.standard_normal(c), requires_grad=True)
        b = tg.tensor(rng.standard_normal(c), requires_grad=True)

        def train(x, w, b):
            return F.batch_norm(x, None, None, w, b, training=True)

        assert gradcheck(train, (x, w, b))
        assert gradgradcheck(train, (x, w, b))
        rm = tg.tensor(rng.standard_normal(c))
        rv = tg.tensor(rng.random(c) + 0.5)

        def evaluate(x, w, b):
            return F.batch_norm(x, rm, rv, w, b, training=False)

        assert gradcheck(evaluate, (x, w, b)) and gradgradcheck(evaluate, (x, w, b))
    bn = nn.BatchNorm1d(3).double()
    x = tg.tensor(rng.standard_normal((5, 3)), requires_grad=True)
    assert gradcheck(lambda v: bn(v), (x,))  # (the running statistics do not enter the output)


def test_batch_norm_errors_name_the_layer_and_shapes():
    with pytest.raises(
        ValueError,
        match=r"BatchNorm1d: Expected more than 1 value per channel when training, "
        r"got input size \(1, 3\)",
    ):
        nn.BatchNorm1d(3)(tg.randn(1, 3))
    with pytest.raises(ValueError, match=r"more than 1 value per channel.*\(1, 3, 1\)"):
        nn.BatchNorm1d(3)(tg.randn(1, 3, 1))
    assert nn.BatchNorm1d(3).eval()(tg.randn(1, 3)).shape == (1, 3)  # eval: running statistics
    bn = nn.BatchNorm1d(3)
    with pytest.raises(RuntimeError, match=r"BatchNorm1d: expected 3 channels .* shape \(2, 4\)"):
        bn(tg.randn(2, 4))
    assert bn.num_batches_tracked.item() == 0  # a refused batch is not counted
    with pytest.raises(
        ValueError,
        match=r"BatchNorm1d: expected 2D or 3D input .* 4D input of shape \(2, 3, 4, 5\)",
    ):
        bn(tg.randn(2, 3, 4, 5))
    with pytest.raises(
        ValueError,
        match=r"BatchNorm2d: expected 4D input \(N, C, H, W\), got 3D input of shape \(3, 4, 5\)",
    ):
        nn.BatchNorm2d(3)(tg.randn(3, 4, 5))
    with pytest.raises(ValueError, match=r"BatchNorm3d: expected 5D input \(N, C, D, H, W\)"):
        nn.BatchNorm3d(3)(tg.randn(2, 3, 4, 5))
    with pytest.raises(
        RuntimeError, match=r"batch_norm: running_mean has shape \(4,\) but the input has 3"
    ):
        F.batch_norm(tg.randn(2, 3), tg.zeros(4), tg.ones(4))
    with pytest.raises(ValueError, match="both running_mean and running_var"):
        F.batch_norm(tg.randn(2, 3), tg.zeros(3), None)
    with pytest.raises(TypeError, match="num_features must be an int"):
        nn.BatchNorm1d(3.0)


def test_layer_norm_closed_form_options_and_gradients():
    rng = np.random.default_rng(2)
    x = rng.standard_normal((2, 3, 4))
    for normalized_shape, axes in [(4, (-1,)), ((3, 4), (-2, -1)), ([3, 4], (-2, -1))]:
        ln = nn.LayerNorm(normalized_shape).double()
        shape = ln.normalized_shape
        w, b = rng.standard_normal(shape), rng.standard_normal(shape)
        ln.weight.set_data(w)
        ln.bias.set_data(b)
        mean, var = x.mean(axes, keepdims=True), x.var(axes, keepdims=True)
        want = (x - mean) / np.sqrt(var + 1e-5) * w + b
        assert np.allclose(ln(tg.tensor(x)).numpy(), want)
    ln = nn.LayerNorm(4)
    assert ln.normalized_shape == (4,) and ln.weight.shape == (4,) and ln.weight.dtype == np.float32
    assert repr(ln) == "LayerNorm((4,), eps=1e-05, elementwise_affine=True, bias=True)"
    assert nn.LayerNorm(4, bias=False).bias is None
    plain = nn.LayerNorm((3, 4), elementwise_affine=False)
    assert list(plain.parameters()) == []
    xt = tg.tensor(x, requires_grad=True)
    w = tg.tensor(rng.standard_normal(4), requires_grad=True)
    b = tg.tensor(rng.standard_normal(4), requires_grad=True)
    assert gradcheck(lambda x, w, b: F.layer_norm(x, (4,), w, b), (xt, w, b))
    assert gradgradcheck(lambda x, w, b: F.layer_norm(x, (4,), w, b), (xt, w, b))
    assert gradgradcheck(lambda x: F.layer_norm(x, (3, 4)), (xt,))


def test_layer_norm_errors():
    with pytest.raises(
        ValueError,
        match=r"LayerNorm: Given normalized_shape=\[4\], expected input with shape \[\*, 4\], "
        r"but got input of shape \(2, 3\)",
    ):
        nn.LayerNorm(4)(tg.randn(2, 3))
    with pytest.raises(ValueError, match=r"normalized_shape=\[2, 4\]"):
        nn.LayerNorm((2, 4))(tg.randn(3))
    with pytest.raises(ValueError, match=r"layer_norm: weight has shape \(3,\)"):
        F.layer_norm(tg.randn(2, 4), (4,), tg.ones(3))


def test_float32_layers_keep_float32():
    x = tg.randn(4, 3, 2, 2)
    assert nn.BatchNorm2d(3)(x).dtype == np.float32
    assert nn.LayerNorm(2)(x).dtype == np.float32


# ---- PyTorch parity ----------------------------------------------------------------------------
def _torch():
    return pytest.importorskip("torch", reason="PyTorch parity checks need torch")


@pytest.mark.parametrize(
    "layer, shape",
    [
        ("BatchNorm1d", (5, 3)),
        ("BatchNorm1d", (4, 3, 6)),
        ("BatchNorm2d", (4, 3, 3, 2)),
        ("BatchNorm3d", (2, 3, 2, 3, 2)),
    ],
)
@pytest.mark.parametrize("momentum", [0.1, None])
def test_batch_norm_matches_pytorch_through_training_and_eval(layer, shape, momentum):
    torch = _torch()
    rng = np.random.default_rng(3)
    ours, theirs = (
        getattr(nn, layer)(3, momentum=momentum).double(),
        getattr(torch.nn, layer)(3, momentum=momentum).double(),
    )
    with torch.no_grad():
        theirs.weight.copy_(torch.tensor(rng.standard_normal(3)))
        theirs.bias.copy_(torch.tensor(rng.standard_normal(3)))
    ours.load_state_dict({k: v.numpy() for k, v in theirs.state_dict().items()})
    for step, training in enumerate([True, True, True, False, True, False]):
        ours.train(training)
        theirs.train(training)
        x = rng.standard_normal(shape) * (step + 1) - step
        tx, gx = torch.tensor(x, requires_grad=True), tg.tensor(x, requires_grad=True)
        g = rng.standard_normal(shape)
        ty, gy = theirs(tx), ours(gx)
        ty.backward(torch.tensor(g))
        gy.backward(tg.tensor(g))
        assert np.allclose(gy.numpy(), ty.detach().numpy(), atol=1e-10)
        assert np.allclose(gx.grad.numpy(), tx.grad.numpy(), atol=1e-10)
        assert np.allclose(ours.weight.grad.numpy(), theirs.weight.grad.numpy(), atol=1e-10)
        assert np.allclose(ours.bias.grad.numpy(), theirs.bias.grad.numpy(), atol=1e-10)
        for name, value in theirs.state_dict().items():
            assert np.allclose(ours.state_dict()[name].numpy(), value.numpy(), atol=1e-12), name


def test_layer_norm_matches_pytorch():
    torch = _torch()
    rng = np.random.default_rng(4)
    x, g = rng.standard_normal((3, 2, 5)), rng.standard_normal((3, 2, 5))
    for shape, kwargs in [
        ((5,), {}),
        ((2, 5), {}),
        ((5,), {"bias": False}),
        ((5,), {"elementwise_affine": False}),
    ]:
        theirs = torch.nn.LayerNorm(shape, **kwargs).double()
        ours = nn.LayerNorm(shape, **kwargs).double()
        with torch.no_grad():
            for p in theirs.parameters():
                p.copy_(torch.tensor(rng.standard_normal(tuple(p.shape))))
        ours.load_state_dict({k: v.numpy() for k, v in theirs.state_dict().items()})
        tx, gx = torch.tensor(x, requires_grad=True), tg.tensor(x, requires_grad=True)
        theirs(tx).backward(torch.tensor(g))
        out = ours(gx)
        out.backward(tg.tensor(g))
        assert np.allclose(out.numpy(), theirs(tx).detach().numpy(), atol=1e-10)
        assert np.allclose(gx.grad.numpy(), tx.grad.numpy(), atol=1e-10)
        for (name, p), q in zip(ours.named_parameters(), theirs.parameters()):
            assert np.allclose(p.grad.numpy(), q.grad.numpy(), atol=1e-10), name


@pytest.mark.parametrize("axes", [(0, 2, 3), (1,), (2, 3)])
def test_normalize_given_the_moments_gives_what_it_computes_itself(axes):
    """batch_norm and layer_norm pass `normalize` the moments they computed (stats=): the output and
    a plain backward must be those of normalize computing them itself."""
    from tapegrad.primitives.normalization import moments, normalize

    rng = np.random.default_rng(4)
    x = rng.standard_normal((4, 3, 5, 2)) * 3 + 1
    mean, var = moments(x, axes)
    np.testing.assert_allclose(mean, x.mean(axes, keepdims=True), rtol=1e-13)
    np.testing.assert_allclose(var, x.var(axes, keepdims=True), rtol=1e-13)
    g = tg.tensor(rng.standard_normal(x.shape))
    results = []
    for stats in ((mean, var), None):
        xt = tg.tensor(x, requires_grad=True)
        out = normalize(xt, axes=axes, eps=1e-3, stats=stats)
        results.append((out.numpy(), tg.autograd.grad(out, xt, g)[0].numpy()))
    for given, computed in zip(*results):
        np.testing.assert_allclose(given, computed, rtol=1e-12, atol=1e-13)
