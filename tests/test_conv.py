"""Convolution: conv2d / conv1d (functional and layers) and the three conv primitives.

Always on: gradcheck and gradgradcheck in float64 for every primitive and layer, closed forms (a 1x1
conv is a matmul, an all-ones kernel a window sum, groups are independent convs), init, repr, every
error. With torch: forward values and input/weight/bias gradients over many configurations.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import tapegrad as tg
from tapegrad.nn import functional_conv as F
from tapegrad.primitives import nn as P
from tapegrad.tape.plan import execution_order

RNG = np.random.default_rng(0)


def t64(*shape, grad=True):
    return tg.tensor(RNG.standard_normal(shape), requires_grad=grad)


# ---- finite differences (no torch needed) ------------------------------------------------------

CONFIGS = [  # (x shape, w shape, keyword arguments)
    ((2, 2, 5, 4), (3, 2, 3, 2), {}),
    ((1, 4, 6, 5), (4, 2, 3, 3), dict(stride=(2, 1), padding=1, groups=2)),
    ((2, 1, 5, 6), (2, 1, 2, 3), dict(padding="same", dilation=(2, 1))),
    ((1, 2, 7, 5), (2, 2, 3, 3), dict(stride=2, padding=(2, 0), dilation=2)),
    ((2, 3, 4, 4), (3, 1, 2, 2), dict(groups=3, padding="valid")),
    # stride 1 with as many input channels as output ones: x's gradient as a transposed conv,
    # also where the padding goes beyond the kernel's reach (g is cropped there)
    ((2, 3, 5, 6), (2, 3, 2, 3), dict(padding=(2, 3), dilation=(1, 2))),
    ((3, 4, 6, 5), (4, 2, 3, 3), dict(padding=1, groups=2)),
]


@pytest.fixture(params=["per sample", "per sample, one sample at a time", "batch last"])
def layout(request, monkeypatch):
    """Every column layout of the conv primitives (each is chosen by shape; here forced), and
    per-sample columns made in chunks of one sample."""
    monkeypatch.setattr(P, "_per_sample", lambda n, wo: request.param.startswith("per sample"))
    if request.param.endswith("at a time"):
        monkeypatch.setattr(P, "_CHUNK", 1)
    return request.param


def direct_conv2d(x, w, stride, padding, dilation, groups):
    """The textbook sum over kernel taps, for reference (NCHW; padding top, bottom, left, right)."""
    (sh, sw), (pt, pb, pl, pr), (dh, dw) = stride, padding, dilation
    xp = np.pad(x, ((0, 0), (0, 0), (pt, pb), (pl, pr)))
    o, cg, kh, kw = w.shape
    ho = (xp.shape[2] - dh * (kh - 1) - 1) // sh + 1
    wo = (xp.shape[3] - dw * (kw - 1) - 1) // sw + 1
    out = np.zeros((x.shape[0], o, ho, wo))
    for k in range(o):
        c0 = (k // (o // groups)) * cg
        for i in range(kh):
            for j in range(kw):
                tap = xp[:, c0 : c0 + cg, i * dh :: sh, j * dw :: sw][:, :, :ho, :wo]
                out[:, k] += np.einsum("nchw,c->nhw", tap, w[k, :, i, j])
    return out


@pytest.mark.parametrize("xs,ws,kw", CONFIGS)
def test_both_column_layouts_give_the_direct_sum_and_check_their_gradients(xs, ws, kw, layout):
    x, w = t64(*xs), t64(*ws)
    p = dict(stride=(1, 1), padding=(0, 0, 0, 0), dilation=(1, 1), groups=1)
    p.update({k: v for k, v in kw.items() if k == "groups"})
    for k in ("stride", "dilation"):
        if k in kw:
            p[k] = kw[k] if isinstance(kw[k], tuple) else (kw[k], kw[k])
    if isinstance(kw.get("padding"), (int, tuple)):
        ph, pw = kw["padding"] if isinstance(kw["padding"], tuple) else (kw["padding"],) * 2
        p["padding"] = (ph, ph, pw, pw)
    out = P.conv2d(x, w, None, **p)
    np.testing.assert_allclose(out.numpy(), direct_conv2d(x.numpy(), w.numpy(), **p), atol=1e-12)
    g = t64(*out.shape)
    assert tg.autograd.gradgradcheck(lambda x, w: P.conv2d(x, w, None, **p), (x, w))
    assert tg.autograd.gradgradcheck(
        lambda g, w: P.conv2d_input_grad(g, w, input_shape=x.shape, **p), (g, w)
    )
    assert tg.autograd.gradgradcheck(
        lambda g, x: P.conv2d_weight_grad(g, x, weight_shape=w.shape, **p), (g, x)
    )


@pytest.mark.parametrize("groups", [1, 2])
def test_a_shorter_last_chunk_of_samples_gives_the_direct_sum_and_its_adjoints(groups, monkeypatch):
    # (the per-sample columns and products live in scratch arrays sized for the first chunk: the
    # last one, shorter, uses a part of them)
    rng = np.random.default_rng(3)
    x, w = rng.standard_normal((5, 4, 7, 6)), rng.standard_normal((4, 4 // groups, 3, 3))
    p = dict(stride=(1, 1), padding=(1, 2, 0, 1), dilation=(1, 1), groups=groups)
    sample_bytes = (
        4 * 9 * 8 * 7 * 8
    )  # (a sample's columns: 4 * 3 * 3 rows, Ho * S = 8 * 7, float64)
    monkeypatch.setattr(P, "_CHUNK", 2 * sample_bytes)  # chunks of 2, 2 and 1 samples
    assert [s.stop - s.start for s in P._chunks(5, sample_bytes)] == [2, 2, 1]
    y = P.conv2d.forward(x, w, None, **p)
    np.testing.assert_allclose(y, direct_conv2d(x, w, **p), atol=1e-12)
    g = rng.standard_normal(y.shape)
    dx = P.conv2d_input_grad.forward(g, w, input_shape=x.shape, **p)
    dw = P.conv2d_weight_grad.forward(g, x, weight_shape=w.shape, **p)
    np.testing.assert_allclose(np.vdot(x, dx), np.vdot(y, g), rtol=1e-12)
    np.testing.assert_allclose(np.vdot(w, dw), np.vdot(y, g), rtol=1e-12)
    for k in range(w.size):  # each weight's gradient on its own: <conv(x, e_k), g>
        e = np.zeros(w.size)
        e[k] = 1
        np.testing.assert_allclose(
            dw.reshape(-1)[k], np.vdot(direct_conv2d(x, e.reshape(w.shape), **p), g), rtol=1e-10
        )


def test_the_layout_follows_the_run_lengths_of_its_copies():
    assert P._per_sample(64, 24) and P._per_sample(2, 5)  # LeNet's first conv; a short batch
    assert not P._per_sample(64, 8)  # LeNet's second conv: batch-last


@pytest.mark.parametrize(
    "padding,dilation",
    [  # (rows of the flat planes share their padding: W + max(left, right) apart, never < Wo)
        ((1, 1, 1, 1), (1, 1)),
        ((0, 2, 3, 0), (1, 1)),  # (left only: the gap is the left padding)
        ((2, 0, 0, 2), (1, 2)),  # (right only, dilated)
        ((3, 3, 3, 3), (1, 1)),  # (more than the kernel reaches: the row is Wo long)
        ((0, 0, 0, 0), (2, 1)),
    ],
)
@pytest.mark.parametrize("groups", [1, 4])  # (dense: flat columns; depthwise: its own kernel)
def test_flat_rows_sharing_their_padding_give_the_direct_sum_and_adjoint_gradients(
    padding, dilation, groups
):
    from tapegrad.primitives import depthwise

    rng = np.random.default_rng(11)
    x, w = rng.standard_normal((3, 4, 7, 9)), rng.standard_normal((4, 4 // groups, 3, 3))
    p = dict(stride=(1, 1), padding=padding, dilation=dilation, groups=groups)
    flat, ho, wo, row = depthwise.flat_planes(x, padding, (3, 3), dilation, x.dtype)
    slack = dilation[1] * 2  # (what the last tap reads past the last row)
    assert row == max(9 + max(padding[2:]), wo)
    assert flat.shape[2] == (7 + sum(padding[:2])) * row + slack
    y = P.conv2d.forward(x, w, None, **p)
    assert y.shape == (3, 4, ho, wo)
    np.testing.assert_allclose(y, direct_conv2d(x, w, **p), atol=1e-12)
    g = rng.standard_normal(y.shape)  # (the gradients as adjoints: <g, conv(x, w)> both ways)
    dx = P.conv2d_input_grad.forward(g, w, input_shape=x.shape, **p)
    dw = P.conv2d_weight_grad.forward(g, x, weight_shape=w.shape, **p)
    assert dx.shape == x.shape and dw.shape == w.shape
    np.testing.assert_allclose(np.sum(dx * x), np.sum(g * y), rtol=1e-11)
    np.testing.assert_allclose(np.sum(dw * w), np.sum(g * y), rtol=1e-11)
    one = np.zeros_like(x)  # (and entry by entry: dx at one input position)
    one[1, 2, 3, 0] = 1.0
    np.testing.assert_allclose(dx[1, 2, 3, 0], np.sum(g * direct_conv2d(one, w, **p)), atol=1e-12)


def test_chunks_cover_the_batch_once_in_order():
    for n, sample_bytes in [(0, 100), (1, 10**9), (7, P._CHUNK // 3), (64, 1)]:
        covered = [i for s in P._chunks(n, sample_bytes) for i in range(n)[s]]
        assert covered == list(range(n))
    assert len(P._chunks(7, P._CHUNK // 3)) == 3  # three samples a chunk
    for layout_by_width in (5, 40):  # (batch-last is never taken for an empty batch)
        empty = tg.zeros(0, 2, layout_by_width, 5, dtype=tg.float64, requires_grad=True)
        w = t64(3, 2, 3, 3)
        out = F.conv2d(empty, w)
        assert out.shape == (0, 3, layout_by_width - 2, 3)
        out.sum().backward()
        assert (w.grad.numpy() == 0).all() and empty.grad.shape == empty.shape


@pytest.mark.parametrize("xs,ws,kw", CONFIGS)
def test_conv2d_gradcheck_and_gradgradcheck(xs, ws, kw):
    x, w, b = t64(*xs), t64(*ws), t64(ws[0])

    def fn(x, w, b):
        return F.conv2d(x, w, b, **kw)

    assert tg.autograd.gradcheck(fn, (x, w, b))
    assert tg.autograd.gradgradcheck(fn, (x, w, b))


def test_conv1d_and_unbatched_gradcheck():
    x, w, b = t64(2, 3, 7), t64(4, 3, 3), t64(4)
    assert tg.autograd.gradgradcheck(
        lambda x, w, b: F.conv1d(x, w, b, stride=2, padding=1), (x, w, b)
    )
    assert tg.autograd.gradgradcheck(
        lambda x, w: F.conv2d(x, w, padding="same"), (t64(2, 4, 3), t64(3, 2, 2, 2))
    )


def test_the_grad_primitives_are_checked_on_their_own():
    p = dict(stride=(2, 1), padding=(1, 0, 0, 1), dilation=(1, 2), groups=2)
    g, w, x = t64(2, 4, 3, 3), t64(4, 1, 2, 2), t64(2, 2, 5, 4)
    assert tg.autograd.gradgradcheck(
        lambda g, w: P.conv2d_input_grad(g, w, input_shape=x.shape, **p), (g, w)
    )
    assert tg.autograd.gradgradcheck(
        lambda g, x: P.conv2d_weight_grad(g, x, weight_shape=w.shape, **p), (g, x)
    )


def test_second_order_records_only_conv_primitives():
    x, w = t64(1, 2, 4, 4), t64(3, 2, 2, 2)
    (gx,) = tg.autograd.grad((F.conv2d(x, w) ** 2).sum(), [x], create_graph=True)
    names = {n.prim.name for n in execution_order([gx.grad_fn])}
    assert {"conv2d", "conv2d_input_grad"} <= names


# ---- closed forms ------------------------------------------------------------------------------


def test_1x1_conv_is_a_matmul():
    x, w = RNG.standard_normal((3, 4, 5, 6)), RNG.standard_normal((7, 4, 1, 1))
    got = F.conv2d(tg.tensor(x), tg.tensor(w)).numpy()
    want = np.einsum("nchw,oc->nohw", x, w[:, :, 0, 0])
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


def test_all_ones_kernel_is_a_window_sum_and_gradients_count_windows():
    x = tg.tensor(RNG.standard_normal((1, 1, 5, 5)), requires_grad=True)
    out = F.conv2d(x, tg.ones(1, 1, 3, 3, dtype=tg.float64))
    window = np.lib.stride_tricks.sliding_window_view(x.numpy()[0, 0], (3, 3)).sum(axis=(2, 3))
    np.testing.assert_allclose(out.numpy()[0, 0], window, rtol=1e-12)
    out.sum().backward()
    counts = np.outer([1, 2, 3, 2, 1], [1, 2, 3, 2, 1])  # how many windows cover each pixel
    np.testing.assert_array_equal(x.grad.numpy()[0, 0], counts)


def test_groups_are_independent_convolutions():
    x, w = RNG.standard_normal((2, 4, 5, 5)), RNG.standard_normal((6, 2, 3, 3))
    got = F.conv2d(tg.tensor(x), tg.tensor(w), groups=2).numpy()
    first = F.conv2d(tg.tensor(x[:, :2]), tg.tensor(w[:3])).numpy()
    second = F.conv2d(tg.tensor(x[:, 2:]), tg.tensor(w[3:])).numpy()
    np.testing.assert_allclose(got, np.concatenate([first, second], axis=1), rtol=1e-12)


def test_same_padding_keeps_the_size_and_puts_the_extra_on_the_right():
    x = tg.tensor(np.arange(5.0).reshape(1, 1, 1, 5))
    out = F.conv2d(x, tg.tensor(np.array([[[[1.0, 0.0]]]])), padding="same")  # picks x[i]
    np.testing.assert_array_equal(out.numpy(), x.numpy())
    out = F.conv2d(x, tg.tensor(np.array([[[[0.0, 1.0]]]])), padding="same")  # picks x[i + 1]
    np.testing.assert_array_equal(out.numpy()[0, 0, 0], [1, 2, 3, 4, 0])


def test_float32_stays_float32_forward_and_backward():
    conv = tg.nn.Conv2d(2, 3, 3)
    x = tg.randn(2, 2, 6, 6, requires_grad=True)
    out = conv(x)
    out.sum().backward()
    assert out.dtype == x.grad.dtype == conv.weight.grad.dtype == conv.bias.grad.dtype == np.float32


# ---- layers ------------------------------------------------------------------------------------


def test_conv2d_layer_shapes_init_and_parameters():
    tg.manual_seed(0)
    conv = tg.nn.Conv2d(6, 16, 5, groups=2)
    assert conv.weight.shape == (16, 3, 5, 5) and conv.bias.shape == (16,)
    bound = 1 / math.sqrt(3 * 25)  # kaiming_uniform(a=sqrt(5)) on fan_in = in/groups * kH * kW
    assert np.abs(conv.weight.numpy()).max() <= bound
    assert np.abs(conv.weight.numpy()).max() > 0.9 * bound
    assert np.abs(conv.bias.numpy()).max() <= bound
    assert [n for n, _ in conv.named_parameters()] == ["weight", "bias"]
    assert tg.nn.Conv2d(1, 2, 3, bias=False).bias is None
    assert conv(tg.ones(4, 6, 9, 9)).shape == (4, 16, 5, 5)
    assert conv(tg.ones(6, 9, 9)).shape == (16, 5, 5)  # unbatched


def test_layers_gradcheck():
    conv = tg.nn.Conv2d(2, 2, (2, 3), stride=(1, 2), padding=1, dilation=(2, 1)).double()
    assert tg.autograd.gradgradcheck(lambda x: conv(x), (t64(1, 2, 5, 6),))
    conv1 = tg.nn.Conv1d(2, 4, 3, padding="same", groups=2).double()
    assert tg.autograd.gradgradcheck(lambda x: conv1(x), (t64(2, 2, 6),))
    for mode in ("reflect", "replicate", "circular"):
        layer = tg.nn.Conv2d(1, 1, 3, padding=(1, 2), padding_mode=mode).double()
        assert tg.autograd.gradcheck(lambda x: layer(x), (t64(1, 1, 4, 4),))


def test_reprs_match_pytorch():
    assert repr(tg.nn.Conv2d(3, 8, 3)) == "Conv2d(3, 8, kernel_size=(3, 3), stride=(1, 1))"
    assert (
        repr(tg.nn.Conv2d(3, 8, (3, 2), 2, 1, 2, 1, False, "reflect"))
        == "Conv2d(3, 8, kernel_size=(3, 2), stride=(2, 2), padding=(1, 1), dilation=(2, 2), "
        "bias=False, padding_mode=reflect)"
    )
    assert repr(tg.nn.Conv2d(3, 8, 3, padding="same")) == (
        "Conv2d(3, 8, kernel_size=(3, 3), stride=(1, 1), padding=same)"
    )
    assert repr(tg.nn.Conv1d(4, 8, 3, groups=2)) == (
        "Conv1d(4, 8, kernel_size=(3,), stride=(1,), groups=2)"
    )


# ---- errors ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "make,exc,match",
    [
        (lambda: tg.nn.Conv2d(3, 8, 3, stride=1.5), TypeError, "stride must be an int"),
        (lambda: tg.nn.Conv2d(3, 8, 3, stride=0), ValueError, "stride must be positive"),
        (
            lambda: tg.nn.Conv2d(3, 8, 3, groups=2),
            ValueError,
            r"in_channels must be divisible by groups \(got in_channels=3, groups=2\)",
        ),
        (
            lambda: tg.nn.Conv2d(4, 6, 3, groups=4),
            ValueError,
            r"out_channels must be divisible by groups \(got out_channels=6, groups=4\)",
        ),
        (lambda: tg.nn.Conv2d(3, 8, 3, stride=2, padding="same"), ValueError, "strided"),
        (lambda: tg.nn.Conv2d(3, 8, 3, padding=-1), ValueError, "padding must be non-negative"),
        (lambda: tg.nn.Conv2d(3, 8, 3, padding="full"), ValueError, "'valid' or 'same'"),
        (lambda: tg.nn.Conv2d(3, 8, 3, padding_mode="zero"), ValueError, "padding_mode"),
        (lambda: tg.nn.Conv2d(3, 8, 0), ValueError, "kernel_size must be positive"),
        (lambda: tg.nn.Conv2d(0, 8, 3), ValueError, "in_channels must be a positive int"),
        (lambda: tg.nn.Conv2d(3, 8, 3, dilation=(1, 0)), ValueError, "dilation must be positive"),
    ],
)
def test_bad_layer_arguments(make, exc, match):
    with pytest.raises(exc, match=match):
        make()


def test_bad_inputs_name_the_layer_and_the_shapes():
    x = tg.ones(2, 3, 5, 5)
    with pytest.raises(RuntimeError, match=r"Conv2d\(4, 8.*4 channels.*\(2, 3, 5, 5\)"):
        tg.nn.Conv2d(4, 8, 3)(x)
    with pytest.raises(RuntimeError, match=r"Conv2d\(3, 8, kernel_size=\(7, 7\).*larger than"):
        tg.nn.Conv2d(3, 8, 7)(x)
    with pytest.raises(RuntimeError, match=r"Conv2d.*4-D.*got shape \(5, 5\)"):
        tg.nn.Conv2d(3, 8, 3)(tg.ones(5, 5))
    with pytest.raises(RuntimeError, match=r"Conv1d.*got shape \(2, 3, 5, 5\)"):
        tg.nn.Conv1d(3, 8, 3)(x)
    with pytest.raises(ValueError, match="too large for reflect"):
        tg.nn.Conv2d(3, 8, 3, padding=5, padding_mode="reflect")(x)


@pytest.mark.parametrize(
    "call,exc,match",
    [
        (lambda x, w: F.conv2d(x, w, padding=-1), ValueError, "conv2d: padding must be non-neg"),
        (lambda x, w: F.conv2d(x, w, stride=0), ValueError, "stride must be positive"),
        (lambda x, w: F.conv2d(x, w, stride=2, padding="same"), ValueError, "strided"),
        (lambda x, w: F.conv2d(x, w.double()), TypeError, "must have the same dtype"),
        (lambda x, w: F.conv2d(x, w, groups=3), RuntimeError, "not divisible by groups=3"),
        (lambda x, w: F.conv2d(x[:, :2], w), RuntimeError, "expects an input with 3 channels"),
        (lambda x, w: F.conv2d(x, w, tg.ones(3)), ValueError, r"bias must be .* \(8,\)"),
        (lambda x, w: F.conv2d(x, w, dilation=3), RuntimeError, "larger than the padded input"),
        (lambda x, w: F.conv2d(x, w[0]), ValueError, "weight must be a 4-D"),
        (lambda x, w: F.conv2d(x.numpy(), w), TypeError, "must be a tapegrad Tensor"),
        (lambda x, w: F.conv1d(x, w), ValueError, r"conv1d: expected .* got shape"),
    ],
)
def test_functional_errors(call, exc, match):
    with pytest.raises(exc, match=match):
        call(tg.ones(2, 3, 5, 5), tg.ones(8, 3, 3, 3))


# ---- PyTorch parity ----------------------------------------------------------------------------

PARITY = [  # (x shape, (out, in/groups, kH, kW), keyword arguments)
    ((2, 3, 7, 6), (4, 3, 3, 3), {}),
    ((2, 3, 9, 8), (4, 3, 3, 2), dict(stride=(2, 3), padding=(1, 2))),
    ((1, 4, 8, 8), (6, 2, 3, 3), dict(groups=2, dilation=2, padding=2)),
    ((2, 2, 6, 7), (3, 2, 2, 4), dict(padding="same")),  # even kernels: uneven padding
    ((2, 2, 6, 7), (3, 2, 4, 3), dict(padding="same", dilation=(1, 2))),
    ((3, 6, 5, 9), (6, 1, 3, 3), dict(groups=6, stride=2)),  # depthwise
    ((2, 1, 28, 28), (6, 1, 5, 5), {}),  # LeNet's first layer
    ((1, 2, 4, 4), (2, 2, 4, 4), dict(padding="valid")),  # kernel as large as the input
]


@pytest.mark.filterwarnings("ignore:Using padding='same'")  # (torch's own note on speed)
@pytest.mark.parametrize("xs,ws,kw", PARITY)
def test_conv2d_matches_torch(xs, ws, kw):
    torch = pytest.importorskip("torch", reason="PyTorch parity (optional)")
    x, w, b = RNG.standard_normal(xs), RNG.standard_normal(ws), RNG.standard_normal(ws[0])
    ours = [tg.tensor(a, requires_grad=True) for a in (x, w, b)]
    theirs = [torch.tensor(a, requires_grad=True) for a in (x, w, b)]
    out = F.conv2d(*ours, **kw)
    ref = torch.nn.functional.conv2d(*theirs, **kw)
    np.testing.assert_allclose(out.numpy(), ref.detach().numpy(), rtol=1e-10, atol=1e-12)
    g = RNG.standard_normal(ref.shape)
    out.backward(tg.tensor(g))
    ref.backward(torch.tensor(g))
    for a, t in zip(ours, theirs):
        np.testing.assert_allclose(a.grad.numpy(), t.grad.numpy(), rtol=1e-10, atol=1e-12)


@pytest.mark.filterwarnings("ignore:Using padding='same'")
@pytest.mark.parametrize("mode", ["zeros", "reflect", "replicate", "circular"])
@pytest.mark.parametrize("padding", [1, (2, 1), "same"])
def test_conv_layers_match_torch_with_copied_weights(mode, padding):
    torch = pytest.importorskip("torch", reason="PyTorch parity (optional)")
    ref = torch.nn.Conv2d(3, 4, (3, 4), padding=padding, padding_mode=mode).double()
    ours = tg.nn.Conv2d(3, 4, (3, 4), padding=padding, padding_mode=mode).double()
    ours.load_state_dict({k: v.detach().numpy() for k, v in ref.state_dict().items()})
    x = RNG.standard_normal((2, 3, 6, 7))
    xt, xo = torch.tensor(x, requires_grad=True), tg.tensor(x, requires_grad=True)
    np.testing.assert_allclose(ours(xo).numpy(), ref(xt).detach().numpy(), rtol=1e-10)
    ours(xo).sum().backward()
    ref(xt).sum().backward()
    np.testing.assert_allclose(xo.grad.numpy(), xt.grad.numpy(), rtol=1e-10)
    np.testing.assert_allclose(ours.weight.grad.numpy(), ref.weight.grad.numpy(), rtol=1e-10)


def test_conv1d_matches_torch():
    torch = pytest.importorskip("torch", reason="PyTorch parity (optional)")
    ref = torch.nn.Conv1d(4, 6, 3, stride=2, padding=1, dilation=2, groups=2).double()
    ours = tg.nn.Conv1d(4, 6, 3, stride=2, padding=1, dilation=2, groups=2).double()
    ours.load_state_dict({k: v.detach().numpy() for k, v in ref.state_dict().items()})
    for shape in [(2, 4, 11), (4, 11)]:
        x = RNG.standard_normal(shape)
        xt, xo = torch.tensor(x, requires_grad=True), tg.tensor(x, requires_grad=True)
        np.testing.assert_allclose(ours(xo).numpy(), ref(xt).detach().numpy(), rtol=1e-10)
        ours(xo).sum().backward()
        ref(xt).sum().backward()
        np.testing.assert_allclose(xo.grad.numpy(), xt.grad.numpy(), rtol=1e-10)
        np.testing.assert_allclose(ours.bias.grad.numpy(), ref.bias.grad.numpy(), rtol=1e-10)
        ours.zero_grad()
        ref.zero_grad()


def test_second_order_matches_torch():
    torch = pytest.importorskip("torch", reason="PyTorch parity (optional)")
    x, w = RNG.standard_normal((2, 2, 6, 5)), RNG.standard_normal((3, 2, 3, 2))
    xo, wo = tg.tensor(x, requires_grad=True), tg.tensor(w, requires_grad=True)
    xt, wt = torch.tensor(x, requires_grad=True), torch.tensor(w, requires_grad=True)
    kw = dict(stride=(2, 1), padding=1)
    go = tg.autograd.grad((F.conv2d(xo, wo, **kw) ** 2).sum(), [xo], create_graph=True)[0]
    gt = torch.autograd.grad(
        (torch.nn.functional.conv2d(xt, wt, **kw) ** 2).sum(), [xt], create_graph=True
    )[0]
    ho = tg.autograd.grad((go**2).sum(), [xo, wo])
    ht = torch.autograd.grad((gt**2).sum(), [xt, wt])
    for a, b in zip(ho, ht):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-9)


@pytest.mark.parametrize(
    "make",
    [
        lambda **kw: tg.nn.Conv2d(2, 3, 3, 1, 0, 1, 1, True, "zeros", **kw),
        lambda **kw: tg.nn.Conv1d(2, 3, 3, 1, 0, 1, 1, True, "zeros", **kw),
        lambda **kw: tg.nn.Linear(2, 3, True, **kw),
        lambda device=None, dtype=None: tg.nn.Linear(2, 3, True, device, dtype),
    ],
)
def test_layers_take_pytorchs_device_and_dtype_arguments(make):
    # PyTorch's signatures end with (..., device=None, dtype=None), in that order
    layer = make(device="cpu", dtype=tg.float64)
    assert all(p.dtype == np.float64 for p in layer.parameters())
    with pytest.raises(RuntimeError, match="device 'cuda' is not available"):
        make(device="cuda")


def test_random_convs_match_torch_to_second_order():
    """Random shapes, strides, dilations, paddings and groups (so both column layouts and both
    input-gradient paths): output, gradients and second-order gradients equal PyTorch's."""
    torch = pytest.importorskip("torch", reason="PyTorch parity (optional)")
    rng = np.random.default_rng(11)
    for _ in range(40):
        groups = int(rng.choice([1, 1, 2, 3]))
        cg, og = (int(v) for v in rng.integers(1, 4, 2))
        n = int(rng.choice([1, 2, 5, 17, 40]))
        kh, kw, sh, sw, dh, dw = (int(v) for v in rng.integers(1, [4, 4, 3, 3, 3, 3]))
        ph, pw = (int(v) for v in rng.integers(0, 3, 2))
        h = int(rng.integers(max(1, dh * (kh - 1) + 1 - 2 * ph), 20))
        width = int(rng.integers(max(1, dw * (kw - 1) + 1 - 2 * pw), 40))
        arrays = (
            rng.standard_normal((n, cg * groups, h, width)),
            rng.standard_normal((og * groups, cg, kh, kw)),
            rng.standard_normal(og * groups),
        )
        kw_ = dict(stride=(sh, sw), padding=(ph, pw), dilation=(dh, dw), groups=groups)
        results = []
        for lib in (tg, torch):
            ts = [lib.tensor(a, requires_grad=True) for a in arrays]
            y = lib.nn.functional.conv2d(*ts, **kw_)
            weights = lib.tensor(np.cos(np.arange(y.numel())).reshape(tuple(y.shape)))
            grads = lib.autograd.grad((y * weights).sum(), ts, create_graph=True)
            second = lib.autograd.grad(sum((g * g).sum() for g in grads), ts[:2])
            results.append([v.detach().numpy() for v in (y, *grads, *second)])
        for ours, theirs in zip(*results):
            np.testing.assert_allclose(ours, theirs, rtol=1e-9, atol=1e-10)
