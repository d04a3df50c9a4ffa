"""NLLLoss, BCELoss, L1Loss, SmoothL1Loss, HuberLoss (and the reworked MSELoss, CrossEntropyLoss,
BCEWithLogitsLoss) with their F. spellings: NumPy closed forms for every reduction, class weights
and ignore_index, finite differences to second order, warnings and errors, PyTorch parity."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import tapegrad as tg
from tapegrad.autograd import gradcheck, gradgradcheck

nn, F = tg.nn, tg.nn.functional
REDUCE = {"mean": np.mean, "sum": np.sum, "none": lambda v: v}


def _data(seed: int = 0) -> tuple:
    rng = np.random.default_rng(seed)
    x, y = rng.standard_normal((4, 3)), rng.standard_normal((4, 3)) * 2
    y[0, 0] = x[0, 0] + 0.5  # inside the quadratic zone of smooth L1 and Huber
    return x, y


@pytest.mark.parametrize("reduction", list(REDUCE))
def test_regression_losses_closed_forms(reduction):
    x, y = _data()
    d = x - y
    a = np.abs(d)
    cases = [
        (nn.MSELoss(reduction=reduction), d * d),
        (nn.L1Loss(reduction=reduction), a),
        (nn.SmoothL1Loss(reduction=reduction), np.where(a < 1, 0.5 * d * d, a - 0.5)),
        (nn.SmoothL1Loss(reduction=reduction, beta=2.0), np.where(a < 2, 0.25 * d * d, a - 1.0)),
        (nn.SmoothL1Loss(reduction=reduction, beta=0.0), a),
        (nn.HuberLoss(reduction=reduction), np.where(a < 1, 0.5 * d * d, a - 0.5)),
        (nn.HuberLoss(reduction=reduction, delta=2.0), np.where(a < 2, 0.5 * d * d, 2 * (a - 1.0))),
    ]
    for loss, elementwise in cases:
        got = loss(tg.tensor(x), tg.tensor(y))
        assert np.allclose(got.numpy(), REDUCE[reduction](elementwise)), (loss, reduction)


def test_regression_losses_gradients_and_weights():
    x, y = _data(1)
    xt, yt = tg.tensor(x, requires_grad=True), tg.tensor(y, requires_grad=True)
    for fn in (F.mse_loss, F.l1_loss, F.smooth_l1_loss, F.huber_loss):
        assert gradcheck(fn, (xt, yt))
    for fn in (F.mse_loss, lambda a, b: F.smooth_l1_loss(a, b, beta=0.7), F.huber_loss):
        assert gradgradcheck(fn, (xt, yt))
    a = tg.tensor([1.0, 3.0], requires_grad=True)
    F.l1_loss(a, tg.tensor([1.0, 1.0]), reduction="sum").backward()
    assert a.grad.tolist() == [0.0, 1.0]  # |d|' = 0 at d = 0, as PyTorch
    w = np.random.default_rng(2).random((4, 3)) + 0.5
    d2, ad = (x - y) ** 2, np.abs(x - y)
    assert np.isclose(
        F.mse_loss(tg.tensor(x), tg.tensor(y), weight=w).item(), (w * d2).sum() / w.sum()
    )
    assert np.isclose(
        F.l1_loss(tg.tensor(x), tg.tensor(y), weight=w, reduction="sum").item(), (w * ad).sum()
    )
    huber = np.where(ad < 1, 0.5 * d2, ad - 0.5)
    assert np.isclose(F.huber_loss(tg.tensor(x), tg.tensor(y), weight=w).item(), (w * huber).mean())
    with pytest.raises(ValueError, match="weights and input must have the same size"):
        F.mse_loss(tg.tensor(x), tg.tensor(y), weight=np.ones(3))


def test_target_shape_warning_as_pytorch():
    message = (
        r"Using a target size \(\(4,\)\) that is different to the input size \(\(4, 1\)\)\. "
        r"This will likely lead to incorrect results due to broadcasting\. "
        r"Please ensure they have the same size\."
    )
    for loss in (nn.MSELoss(), nn.L1Loss(), nn.SmoothL1Loss(), nn.HuberLoss()):
        with pytest.warns(UserWarning, match=message):
            out = loss(tg.ones(4, 1), tg.zeros(4))
        assert out.shape == ()  # broadcast to (4, 4), as PyTorch
    with pytest.warns(UserWarning, match="target size"):
        F.mse_loss(tg.ones(4), tg.ones(1))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        F.mse_loss(tg.ones(2, 3), tg.zeros(2, 3))
        F.l1_loss(tg.ones(3), 0.0)  # a Python number is not a shape mistake
    with pytest.raises(ValueError, match=r"mse_loss: target shape \(3,\) does not broadcast"):
        F.mse_loss(tg.ones(4), tg.ones(3))


def test_reduction_options_legacy_flags_and_bad_values():
    x, y = tg.tensor([1.0, 3.0]), tg.tensor([0.0, 0.0])
    with pytest.warns(
        UserWarning,
        match="size_average and reduce args will be deprecated, please use reduction='sum'",
    ):
        assert nn.MSELoss(size_average=False)(x, y).item() == 10.0
    with pytest.warns(UserWarning, match="reduction='none'"):
        assert F.l1_loss(x, y, reduce=False).tolist() == [1.0, 3.0]
    assert nn.MSELoss("sum")(x, y).item() == 10.0  # MindSpore's positional reduction
    with pytest.raises(ValueError, match="reduction must be 'mean', 'sum' or 'none', got 'avg'"):
        nn.L1Loss(reduction="avg")
    with pytest.raises(ValueError, match="got 'avg'"):
        F.huber_loss(x, y, reduction="avg")
    with pytest.raises(ValueError, match="negative values for beta"):
        nn.SmoothL1Loss(beta=-1.0)
    with pytest.raises(ValueError, match="non-positive values for delta"):
        F.huber_loss(x, y, delta=0.0)
    assert repr(nn.L1Loss(reduction="sum")) == "L1Loss()"  # (as PyTorch's: no options shown)


def _nll_reference(logp, target, weight, ignore_index, reduction):
    axis = 1 if logp.ndim > 1 else 0
    lp = np.moveaxis(logp, axis, -1)
    valid = target != ignore_index
    safe = np.where(valid, target, 0)
    picked = np.take_along_axis(lp, safe[..., None], -1)[..., 0]
    w = (np.ones(lp.shape[-1]) if weight is None else weight)[safe] * valid
    losses = -picked * w
    if reduction == "mean":
        return losses.sum() / w.sum()
    return losses.sum() if reduction == "sum" else losses


@pytest.mark.parametrize("reduction", list(REDUCE))
def test_nll_loss_weights_ignore_index_and_shapes(reduction):
    rng = np.random.default_rng(3)
    cw = rng.random(4) + 0.2
    cases = [
        (rng.standard_normal((6, 4)), np.array([0, 3, -100, 2, 1, 3]), None, -100),
        (rng.standard_normal((6, 4)), np.array([0, 3, -100, 2, 1, 3]), cw, -100),
        (rng.standard_normal((6, 4)), np.array([0, 3, 1, 2, 1, 3]), cw, 3),
        (rng.standard_normal((2, 4, 3, 2)), rng.integers(0, 4, (2, 3, 2)), cw, 1),
        (rng.standard_normal(4), np.array(2), None, -100),
    ]
    for logp, target, weight, ignore in cases:
        got = nn.NLLLoss(weight, ignore_index=ignore, reduction=reduction)(
            tg.tensor(logp), tg.tensor(target)
        )
        want = _nll_reference(logp, target, weight, ignore, reduction)
        assert got.shape == np.shape(want) and np.allclose(got.numpy(), want)
        lp = tg.tensor(logp, requires_grad=True)
        assert gradcheck(
            lambda v: F.nll_loss(
                v, tg.tensor(target), weight, ignore_index=ignore, reduction=reduction
            ),
            (lp,),
        )


def test_nll_and_cross_entropy_edge_cases_and_errors():
    everything_ignored = tg.tensor([-100, -100])
    assert np.isnan(F.nll_loss(tg.zeros(2, 3), everything_ignored).item())  # 0 / 0, as PyTorch
    assert F.nll_loss(tg.zeros(2, 3), everything_ignored, reduction="sum").item() == 0.0
    assert np.isnan(F.cross_entropy(tg.zeros(2, 3), everything_ignored).item())
    minus_inf = tg.tensor([[-np.inf, 0.0]])  # a log-probability of 0 for a class not picked
    assert F.nll_loss(minus_inf, tg.tensor([1])).item() == 0.0
    with pytest.raises(IndexError, match="nll_loss: Target 3 is out of bounds"):
        F.nll_loss(tg.zeros(2, 3), tg.tensor([0, 3]))
    with pytest.raises(IndexError, match="Target -1 is out of bounds"):
        nn.NLLLoss()(tg.zeros(2, 3), tg.tensor([0, -1]))
    with pytest.raises(
        TypeError, match="expected integer class indices as target, got dtype float32"
    ):
        F.nll_loss(tg.zeros(2, 3), tg.tensor([0.0, 1.0]))
    with pytest.raises(
        ValueError, match=r"Expected input batch_size \(2\) to match target batch_size \(3\)"
    ):
        F.nll_loss(tg.zeros(2, 3), tg.tensor([0, 1, 1]))
    with pytest.raises(ValueError, match=r"target of shape \(2, 4\) .* got \(2,\)"):
        F.nll_loss(tg.zeros(2, 3, 4), tg.tensor([0, 1]))
    with pytest.raises(
        ValueError, match=r"weight should be defined either for all 3 classes .* \(4,\)"
    ):
        nn.NLLLoss(weight=np.ones(4))(tg.zeros(2, 3), tg.tensor([0, 1]))
    with pytest.raises(ValueError, match="one number per class"):
        nn.NLLLoss(weight=np.ones((2, 2)))


@pytest.mark.parametrize("smoothing", [0.0, 0.2])
def test_every_target_ignored_gives_nan_but_a_zero_gradient(smoothing):
    # PyTorch: the 'mean' is 0 / 0 = nan, yet nothing reaches the input, so its gradient is 0
    logits = tg.tensor(np.random.default_rng(1).standard_normal((3, 4)), requires_grad=True)
    ignored = tg.tensor([-100, -100, -100])
    for loss in (
        F.nll_loss(logits.log_softmax(1), ignored),
        F.cross_entropy(logits, ignored, weight=np.arange(1.0, 5.0), label_smoothing=smoothing),
    ):
        logits.grad = None
        assert np.isnan(loss.item())
        loss.backward()
        np.testing.assert_array_equal(logits.grad.numpy(), np.zeros((3, 4)))
    # one target counted: a finite mean whose gradient agrees with finite differences
    some = tg.tensor([-100, 2, -100])
    assert gradcheck(lambda x: F.cross_entropy(x, some, label_smoothing=smoothing), (logits,))


@pytest.mark.parametrize("reduction", list(REDUCE))
def test_cross_entropy_is_nll_of_log_softmax_with_label_smoothing(reduction):
    rng = np.random.default_rng(4)
    logits = rng.standard_normal((5, 4))
    target = np.array([0, 3, -100, 2, 1])
    cw = rng.random(4) + 0.5
    logp = logits - np.log(np.exp(logits).sum(1, keepdims=True))
    got = F.cross_entropy(tg.tensor(logits), tg.tensor(target), cw, reduction=reduction)
    assert np.allclose(got.numpy(), _nll_reference(logp, target, cw, -100, reduction))
    eps = 0.2
    valid = target != -100
    smooth = -(logp * cw).sum(1) * valid
    nll = _nll_reference(logp, target, cw, -100, "none")
    per_sample = (1 - eps) * nll + eps / 4 * smooth
    want = {
        "mean": per_sample.sum() / cw[np.where(valid, target, 0)][valid].sum(),
        "sum": per_sample.sum(),
        "none": per_sample,
    }[reduction]
    got = nn.CrossEntropyLoss(cw, label_smoothing=eps, reduction=reduction)(
        tg.tensor(logits), tg.tensor(target)
    )
    assert np.allclose(got.numpy(), want)
    lg = tg.tensor(logits, requires_grad=True)
    assert gradgradcheck(
        lambda v: F.cross_entropy(
            v, tg.tensor(target), cw, reduction=reduction, label_smoothing=eps
        ),
        (lg,),
    )


@pytest.mark.parametrize("reduction", list(REDUCE))
def test_binary_cross_entropy_closed_form_clamp_and_gradients(reduction):
    rng = np.random.default_rng(5)
    p, y = rng.random((3, 4)) * 0.9 + 0.05, rng.random((3, 4))
    w = rng.random(4) + 0.5
    elementwise = -w * (y * np.log(p) + (1 - y) * np.log(1 - p))
    got = nn.BCELoss(weight=w, reduction=reduction)(tg.tensor(p), tg.tensor(y))
    assert np.allclose(got.numpy(), REDUCE[reduction](elementwise))
    pt, yt = tg.tensor(p, requires_grad=True), tg.tensor(y, requires_grad=True)
    assert gradcheck(lambda a, b: F.binary_cross_entropy(a, b, w, reduction=reduction), (pt, yt))
    assert gradgradcheck(
        lambda a, b: F.binary_cross_entropy(a, b, w, reduction=reduction), (pt, yt)
    )


def test_binary_cross_entropy_edges_follow_pytorch():
    x = tg.tensor([0.0, 1.0, 1e-20, 1.0, 0.0], dtype=tg.float64, requires_grad=True)
    y = tg.tensor([0.0, 1.0, 1.0, 0.0, 1.0], dtype=tg.float64)
    losses = F.binary_cross_entropy(x, y, reduction="none")
    assert np.allclose(
        losses.numpy(), [0.0, 0.0, 46.0517018599, 100.0, 100.0]
    )  # logs clamped at -100
    losses.sum().backward()
    # PyTorch's gradient (x - y) / max(x (1 - x), 1e-12): finite at 0 and 1
    assert np.allclose(x.grad.numpy(), [0.0, 0.0, -1e12, 1e12, -1e12], rtol=1e-6)
    with pytest.raises(ValueError, match="all elements of input should be between 0 and 1"):
        nn.BCELoss()(tg.tensor([1.5]), tg.tensor([1.0]))
    with pytest.raises(ValueError, match="all elements of target should be between 0 and 1"):
        F.binary_cross_entropy(tg.tensor([0.5]), tg.tensor([1.5]))
    with pytest.raises(
        ValueError, match=r"target size \(\(1,\)\) that is different to the input size \(\(2,\)\)"
    ):
        F.binary_cross_entropy(tg.tensor([0.5, 0.2]), tg.tensor([1.0]))
    with pytest.raises(ValueError, match=r"weight of shape \(3,\) does not broadcast"):
        nn.BCELoss(weight=np.ones(3))(tg.tensor([0.5, 0.2]), tg.tensor([1.0, 0.0]))
    with pytest.raises(ValueError, match="not differentiable with respect to weight"):
        F.binary_cross_entropy(tg.tensor([0.5]), tg.tensor([1.0]), tg.ones(1, requires_grad=True))


def test_class_weights_are_buffers():
    loss = nn.CrossEntropyLoss(weight=tg.tensor([1.0, 2.0]))
    assert list(loss.state_dict()) == ["weight"] and loss.weight.tolist() == [1.0, 2.0]
    assert list(nn.CrossEntropyLoss().state_dict()) == []
    assert list(nn.BCEWithLogitsLoss(pos_weight=[2.0]).state_dict()) == ["pos_weight"]
    loss.double()
    assert loss.weight.dtype == np.float64


# ---- PyTorch parity ---------------------------------------------------------------------------
def test_losses_match_pytorch_to_second_order():
    torch = pytest.importorskip("torch", reason="PyTorch parity checks need torch")
    tf = torch.nn.functional
    rng = np.random.default_rng(6)
    x, y = rng.standard_normal((5, 4)), rng.standard_normal((5, 4))
    y[0, 0] = x[0, 0]
    w = rng.random((5, 4)) + 0.5
    cw = rng.random(4) + 0.2
    lp3, t3 = rng.standard_normal((2, 4, 3)), rng.integers(0, 4, (2, 3))
    t3[0, 0] = 2  # (ignored below)
    target = np.array([0, 3, -100, 2, 1])
    probs = rng.random((5, 4))
    probs /= probs.sum(1, keepdims=True)
    p, q = rng.random((5, 4)) * 0.98 + 0.01, rng.random((5, 4))
    for red in REDUCE:
        cases = [
            (
                "mse",
                (x, y),
                lambda a, b: F.mse_loss(a, b, reduction=red),
                lambda a, b: tf.mse_loss(a, b, reduction=red),
            ),
            (
                "mse w",
                (x, y),
                lambda a, b: F.mse_loss(a, b, reduction=red, weight=w),
                lambda a, b: tf.mse_loss(a, b, reduction=red, weight=torch.tensor(w)),
            ),
            (
                "l1",
                (x, y),
                lambda a, b: F.l1_loss(a, b, reduction=red),
                lambda a, b: tf.l1_loss(a, b, reduction=red),
            ),
            (
                "l1 w",
                (x, y),
                lambda a, b: F.l1_loss(a, b, reduction=red, weight=w),
                lambda a, b: tf.l1_loss(a, b, reduction=red, weight=torch.tensor(w)),
            ),
            (
                "smooth",
                (x, y),
                lambda a, b: F.smooth_l1_loss(a, b, reduction=red, beta=0.5),
                lambda a, b: tf.smooth_l1_loss(a, b, reduction=red, beta=0.5),
            ),
            (
                "huber",
                (x, y),
                lambda a, b: F.huber_loss(a, b, reduction=red, delta=1.5, weight=w),
                lambda a, b: tf.huber_loss(a, b, reduction=red, delta=1.5, weight=torch.tensor(w)),
            ),
            (
                "nll",
                (x, target),
                lambda a, t: F.nll_loss(a, t, cw, reduction=red),
                lambda a, t: tf.nll_loss(a, t, torch.tensor(cw), reduction=red),
            ),
            (
                "nll 3d",
                (lp3, t3),
                lambda a, t: F.nll_loss(a, t, cw, ignore_index=2, reduction=red),
                lambda a, t: tf.nll_loss(a, t, torch.tensor(cw), ignore_index=2, reduction=red),
            ),
            (
                "ce",
                (x, target),
                lambda a, t: F.cross_entropy(a, t, cw, reduction=red, label_smoothing=0.1),
                lambda a, t: tf.cross_entropy(
                    a, t, torch.tensor(cw), reduction=red, label_smoothing=0.1
                ),
            ),
            (
                "ce probs",
                (x, probs),
                lambda a, t: F.cross_entropy(a, t, cw, reduction=red, label_smoothing=0.1),
                lambda a, t: tf.cross_entropy(
                    a, t, torch.tensor(cw), reduction=red, label_smoothing=0.1
                ),
            ),
            (
                "bce",
                (p, q),
                lambda a, b: F.binary_cross_entropy(a, b, cw, reduction=red),
                lambda a, b: tf.binary_cross_entropy(a, b, torch.tensor(cw), reduction=red),
            ),
            (
                "bce logits",
                (x, q),
                lambda a, b: F.binary_cross_entropy_with_logits(
                    a, b, cw, reduction=red, pos_weight=cw[::-1].copy()
                ),
                lambda a, b: tf.binary_cross_entropy_with_logits(
                    a, b, torch.tensor(cw), reduction=red, pos_weight=torch.tensor(cw[::-1].copy())
                ),
            ),
        ]
        for name, (a, b), ours_fn, theirs_fn in cases:
            differentiable_b = b.dtype.kind == "f"
            ta, ga = torch.tensor(a, requires_grad=True), tg.tensor(a, requires_grad=True)
            tb = torch.tensor(b, requires_grad=differentiable_b)
            gb = tg.tensor(b, requires_grad=differentiable_b)
            ty, gy = theirs_fn(ta, tb), ours_fn(ga, gb)
            assert np.allclose(gy.numpy(), ty.detach().numpy(), rtol=1e-12, equal_nan=True), (
                name,
                red,
            )
            g = rng.standard_normal(tuple(ty.shape))
            inputs_t, inputs_g = ([ta, tb], [ga, gb]) if differentiable_b else ([ta], [ga])
            td = torch.autograd.grad(ty, inputs_t, torch.tensor(g), create_graph=True)
            gd = tg.autograd.grad(gy, inputs_g, tg.tensor(g), create_graph=True)
            for u, v in zip(gd, td):
                assert np.allclose(u.numpy(), v.detach().numpy(), rtol=1e-10, atol=1e-12), (
                    name,
                    red,
                )
            t_root = sum((v * v).sum() for v in td)
            g_root = sum((u * u).sum() for u in gd)
            td2 = torch.autograd.grad(t_root, inputs_t, allow_unused=True, materialize_grads=True)
            gd2 = (
                tg.autograd.grad(g_root, inputs_g, allow_unused=True)
                if g_root.requires_grad
                else [None] * len(inputs_g)
            )
            for u, v, inp in zip(gd2, td2, inputs_g):
                u = np.zeros(inp.shape) if u is None else u.numpy()
                assert np.allclose(u, v.numpy(force=True), rtol=1e-7, atol=1e-9), (
                    name,
                    red,
                    "second order",
                )


def test_mse_loss_is_one_node_and_its_gradient_one_more_as_pytorch():
    """F.mse_loss (no weight, mean or sum) records one MseBackward node, and its gradient under
    create_graph one MseBackwardBackward node; values and both orders equal PyTorch's in
    float32, inputs untouched, also for a target that broadcasts."""
    torch = pytest.importorskip("torch", reason="PyTorch parity checks need torch")
    rng = np.random.default_rng(11)
    for shape_x, shape_y in (((64, 10), (64, 10)), ((5, 3), (3,)), ((), ())):
        x = rng.standard_normal(shape_x).astype(np.float32)
        y = rng.standard_normal(shape_y).astype(np.float32)
        v = rng.standard_normal(shape_x).astype(np.float32)
        x0, y0 = x.copy(), y.copy()
        for red in ("mean", "sum"):
            xt, yt = tg.tensor(x, requires_grad=True), tg.tensor(y, requires_grad=True)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # (the broadcast target's warning)
                loss = F.mse_loss(xt, yt, reduction=red)
            assert loss.grad_fn.name == "MseBackward" and loss.dtype == np.float32
            gx, gy = tg.autograd.grad(loss, [xt, yt], create_graph=True)
            assert gx.grad_fn.name == "MseBackwardBackward" and gx.dtype == np.float32
            hx, hy = tg.autograd.grad((gx * tg.tensor(v)).sum(), [xt, yt])
            xs, ys = torch.tensor(x, requires_grad=True), torch.tensor(y, requires_grad=True)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                want = torch.nn.functional.mse_loss(xs, ys, reduction=red)
            wx, wy = torch.autograd.grad(want, [xs, ys], create_graph=True)
            vx, vy = torch.autograd.grad((wx * torch.tensor(v)).sum(), [xs, ys])
            pairs = ((loss, want), (gx, wx), (gy, wy), (hx, vx), (hy, vy))
            for got, ref in pairs:
                np.testing.assert_allclose(got.numpy(), ref.detach().numpy(), rtol=1e-5, atol=1e-6)
            assert np.array_equal(x, x0) and np.array_equal(y, y0)


@pytest.mark.parametrize("reduction", ["mean", "sum"])
def test_mse_loss_of_empty_inputs_has_empty_gradients_to_second_order(reduction):
    """An empty batch: the mean is NaN and the sum 0, as PyTorch's, and both gradient orders are
    empty arrays (the fused rule divides by the count of squared errors, 0 here: no error)."""
    x = tg.zeros(0, 3, requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (NumPy's mean of nothing)
        loss = F.mse_loss(x, tg.zeros(0, 3), reduction=reduction)
    assert np.isnan(loss.item()) if reduction == "mean" else loss.item() == 0.0
    (g,) = tg.autograd.grad(loss, x, create_graph=True)
    assert g.shape == (0, 3) and g.grad_fn is not None
    (h,) = tg.autograd.grad(g.sum(), x, allow_unused=True)
    assert h is None or h.shape == (0, 3)


LOSS_OPTIONS = {  # each loss with options other than its defaults (repr shows none, as PyTorch's)
    "MSELoss": {"reduction": "sum"},
    "L1Loss": {"reduction": "none"},
    "SmoothL1Loss": {"reduction": "sum", "beta": 2.0},
    "HuberLoss": {"reduction": "sum", "delta": 2.0},
    "NLLLoss": {"weight": [1.0, 2.0], "ignore_index": 1, "reduction": "sum"},
    "CrossEntropyLoss": {"weight": [1.0, 2.0], "label_smoothing": 0.1, "reduction": "none"},
    "BCELoss": {"weight": [1.0, 2.0], "reduction": "sum"},
    "BCEWithLogitsLoss": {"pos_weight": [2.0], "reduction": "sum"},
    "KLDivLoss": {"reduction": "batchmean", "log_target": True},
    "PoissonNLLLoss": {"log_input": False, "full": True, "eps": 1e-3, "reduction": "sum"},
    "GaussianNLLLoss": {"full": True, "eps": 1e-3, "reduction": "sum"},
    "MarginRankingLoss": {"margin": 0.5, "reduction": "sum"},
    "HingeEmbeddingLoss": {"margin": 2.0, "reduction": "none"},
    "SoftMarginLoss": {"reduction": "sum"},
    "MultiLabelSoftMarginLoss": {"weight": [1.0, 2.0], "reduction": "sum"},
    "MultiMarginLoss": {"p": 2, "margin": 0.5, "weight": [1.0, 2.0], "reduction": "sum"},
    "MultiLabelMarginLoss": {"reduction": "none"},
    "CosineEmbeddingLoss": {"margin": 0.5, "reduction": "sum"},
    "TripletMarginLoss": {"margin": 2.0, "p": 1.0, "swap": True, "reduction": "sum"},
    "TripletMarginWithDistanceLoss": {"margin": 2.0, "swap": True, "reduction": "sum"},
    "CTCLoss": {"blank": 3, "reduction": "none", "zero_infinity": True},
}


def test_every_loss_class_is_covered_here():
    losses = {n for n in dir(nn) if n.endswith("Loss") and isinstance(getattr(nn, n), type)}
    # (AdaptiveLogSoftmaxWithLoss is a layer with a loss, not a _Loss: as PyTorch's;
    # LinearCrossEntropyLoss needs its sizes: its repr is compared in test_linear_cross_entropy)
    layers_with_a_loss = {"AdaptiveLogSoftmaxWithLoss", "LinearCrossEntropyLoss"}
    assert losses - layers_with_a_loss == set(LOSS_OPTIONS)


@pytest.mark.parametrize("name", sorted(LOSS_OPTIONS))
@pytest.mark.parametrize("with_options", [False, True])
def test_loss_reprs_equal_pytorchs(name, with_options):
    torch = pytest.importorskip("torch")
    options = LOSS_OPTIONS[name] if with_options else {}
    theirs = {k: torch.tensor(v) if isinstance(v, list) else v for k, v in options.items()}
    assert repr(getattr(nn, name)(**options)) == repr(getattr(torch.nn, name)(**theirs))
