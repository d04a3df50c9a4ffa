"""Numerics: stability at magnitude 1e4, and dtypes (no silent upcast, documented mixed precision).

1. log_softmax, softmax, logsumexp, sigmoid, nn.CrossEntropyLoss and nn.BCEWithLogitsLoss on inputs
of magnitude 1e4, in float16, float32 and float64: values and gradients are finite and match a
float64 reference to a few units in the last place of the dtype. The bar is what a shift-invariant
implementation reaches (softmax computed from x - max(x), as PyTorch does): the inputs are exact in
every dtype, so the only error allowed is the rounding of the results.
2. float16 and float32 stay in their dtype through forward and backward for every primitive of the
   rule table (checked on the outputs, the leaf gradients, every gradient a rule returns, and second
   order); Python scalars and NumPy scalars (np.float64 included) never upcast.
3. Mixed precision follows NumPy promotion (float16 op float32 -> float32) and each input's gradient
   comes back in that input's own dtype.
"""

from __future__ import annotations

import numpy as np
import pytest

import tapegrad as tg
from tapegrad import primitives as P
from tapegrad.primitives import REGISTRY
from tapegrad.tape.engine import run_backward

LOW = (np.float16, np.float32)
ALL = (np.float16, np.float32, np.float64)
ULPS = 16  # allowed error, in units of the dtype's epsilon (times the result's magnitude)


def _eps(dtype) -> float:
    return float(np.finfo(dtype).eps)


# ---------------------------------------------------------------------------------------------
# 1. Stability at magnitude 1e4

# Every entry is exactly representable in float16 (multiples of 8 near 1e4), so all dtypes see the
# same numbers. Rows: tied maxima, near ties, all very negative, all equal, mixed magnitudes.
X = np.array(
    [
        [1e4, 1e4, -1e4, 0.0],
        [1e4, 1e4 - 8, 1e4 - 16, -1e4],
        [-1e4, -1e4, -1e4, -1e4],
        [1e4, 1e4, 1e4, 1e4],
        [5e3, -5e3, 1.0, 0.0],
    ]
)
G = np.array(
    [  # the upstream gradient: exact in every dtype
        [0.5, -1.0, 0.25, 2.0],
        [1.0, 1.0, -0.5, 0.5],
        [-2.0, 0.5, 1.0, 0.25],
        [1.0, -1.0, 0.5, 0.0],
        [0.25, 2.0, -1.0, 1.0],
    ]
)


def _ref_softmax(x, axis):
    e = np.exp(x - np.max(x, axis=axis, keepdims=True))
    return e / np.sum(e, axis=axis, keepdims=True)


def _ref_log_softmax(x, axis):
    shifted = x - np.max(x, axis=axis, keepdims=True)
    return shifted - np.log(np.sum(np.exp(shifted), axis=axis, keepdims=True))


def _ref_logsumexp(x, axis):
    m = np.max(x, axis=axis, keepdims=True)
    return np.squeeze(m + np.log(np.sum(np.exp(x - m), axis=axis, keepdims=True)), axis=axis)


def _ref_sigmoid(x):
    return np.where(
        x >= 0, 1 / (1 + np.exp(-np.abs(x))), np.exp(-np.abs(x)) / (1 + np.exp(-np.abs(x)))
    )


# name -> (tapegrad op, float64 reference value, float64 reference VJP given upstream g)
STABLE_OPS = {
    "softmax": (
        lambda t, ax: t.softmax(ax),
        _ref_softmax,
        lambda x, g, ax: (
            _ref_softmax(x, ax) * (g - np.sum(g * _ref_softmax(x, ax), ax, keepdims=True))
        ),
    ),
    "log_softmax": (
        lambda t, ax: tg.log_softmax(t, dim=ax),
        _ref_log_softmax,
        lambda x, g, ax: g - _ref_softmax(x, ax) * np.sum(g, ax, keepdims=True),
    ),
    "logsumexp": (
        lambda t, ax: t.logsumexp(axis=ax),
        _ref_logsumexp,
        lambda x, g, ax: np.expand_dims(g, ax) * _ref_softmax(x, ax),
    ),
    "sigmoid": (
        lambda t, ax: tg.sigmoid(t),
        lambda x, ax: _ref_sigmoid(x),
        lambda x, g, ax: g * _ref_sigmoid(x) * (1 - _ref_sigmoid(x)),
    ),
}


def _check(actual, expected, tol, what):
    actual = np.asarray(actual, dtype=np.float64)
    assert np.all(np.isfinite(actual)), f"{what}: not finite: {actual.tolist()}"
    err = np.abs(actual - expected)
    bad = err > tol
    assert not np.any(bad), (
        f"{what}: error up to {err.max():.3g} where "
        f"{np.broadcast_to(tol, err.shape)[bad].min():.3g} "
        f"is allowed\n  got:      {actual.tolist()}\n  expected: {expected.tolist()}"
    )


@pytest.mark.parametrize("axis", [-1, 0])
@pytest.mark.parametrize("dtype", ALL, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("name", list(STABLE_OPS))
def test_stable_at_magnitude_1e4(name, dtype, axis):
    op, ref, ref_vjp = STABLE_OPS[name]
    eps = _eps(dtype)
    x = tg.tensor(X.astype(dtype), requires_grad=True)
    y = op(x, axis)
    assert y.dtype == dtype, f"{name} returned {y.dtype} for a {np.dtype(dtype).name} input"
    expected = ref(X, axis)
    # results in [0, 1] (softmax, sigmoid): absolute error; log-domain results: relative to |result|
    _check(
        y.numpy(),
        expected,
        ULPS * eps * np.maximum(1.0, np.abs(expected)),
        f"{name}({np.dtype(dtype).name}, axis={axis}) value",
    )
    if name == "softmax":
        _check(
            y.numpy().astype(np.float64).sum(axis=axis),
            np.ones(X.shape[1 - axis % 2]),
            ULPS * eps * X.shape[axis],
            f"softmax({np.dtype(dtype).name}) sums to one",
        )

    g_up = G if name != "logsumexp" else G[:, 0] if axis == -1 else G[0]
    (gx,) = tg.autograd.grad(y, x, grad_outputs=tg.tensor(g_up.astype(dtype)))
    assert gx.dtype == dtype, f"d{name}/dx is {gx.dtype} for a {np.dtype(dtype).name} input"
    expected_g = ref_vjp(X, g_up, axis)
    scale = 1.0 + np.sum(np.abs(G)) / G.shape[0]
    _check(
        gx.numpy(),
        expected_g,
        ULPS * eps * scale,
        f"{name}({np.dtype(dtype).name}, axis={axis}) gradient",
    )


@pytest.mark.parametrize("dtype", ALL, ids=lambda d: np.dtype(d).name)
def test_cross_entropy_loss_stable_at_magnitude_1e4(dtype):
    logits = X.astype(dtype)
    labels = np.array([1, 0, 3, 2, 1])
    n = len(labels)
    x = tg.tensor(logits, requires_grad=True)
    loss = tg.nn.CrossEntropyLoss()(x, tg.tensor(labels))
    assert loss.dtype == dtype and loss.shape == ()
    logp = _ref_log_softmax(X, 1)
    expected = -np.mean(logp[np.arange(n), labels])
    _check(
        loss.numpy(),
        expected,
        ULPS * _eps(dtype) * max(1.0, abs(expected)),
        f"CrossEntropyLoss({np.dtype(dtype).name}) value",
    )
    loss.backward()
    assert x.grad.dtype == dtype
    onehot = np.eye(X.shape[1])[labels]
    expected_g = (_ref_softmax(X, 1) - onehot) / n
    _check(
        x.grad.numpy(),
        expected_g,
        ULPS * _eps(dtype),
        f"CrossEntropyLoss({np.dtype(dtype).name}) gradient",
    )

    # class-probability targets
    probs = np.full(X.shape, 0.25)
    x2 = tg.tensor(logits, requires_grad=True)
    loss2 = tg.nn.CrossEntropyLoss()(x2, tg.tensor(probs.astype(dtype)))
    expected2 = -np.mean(np.sum(probs * logp, axis=1))
    _check(
        loss2.numpy(),
        expected2,
        ULPS * _eps(dtype) * max(1.0, abs(expected2)),
        f"CrossEntropyLoss({np.dtype(dtype).name}, probabilities) value",
    )
    loss2.backward()
    _check(
        x2.grad.numpy(),
        (_ref_softmax(X, 1) - probs) / n,
        ULPS * _eps(dtype),
        f"CrossEntropyLoss({np.dtype(dtype).name}, probabilities) gradient",
    )


@pytest.mark.parametrize("dtype", ALL, ids=lambda d: np.dtype(d).name)
def test_bce_with_logits_loss_stable_at_magnitude_1e4(dtype):
    logits = np.array([1e4, -1e4, 1e4, -1e4, 0.0, 0.0, 2.0, -3.0, 0.0])
    target = np.array([1.0, 0.0, 0.0, 1.0, 1.0, 0.0, 0.5, 0.25, 0.5])
    x = tg.tensor(logits.astype(dtype), requires_grad=True)
    loss = tg.nn.BCEWithLogitsLoss(reduction="sum")(x, tg.tensor(target.astype(dtype)))
    assert loss.dtype == dtype
    per = np.maximum(logits, 0) - logits * target + np.log1p(np.exp(-np.abs(logits)))
    _check(
        loss.numpy(),
        per.sum(),
        ULPS * _eps(dtype) * per.sum(),
        f"BCEWithLogitsLoss({np.dtype(dtype).name}) value",
    )
    loss.backward()
    assert x.grad.dtype == dtype
    # d/dx = sigmoid(x) - y everywhere, including x == 0 (where the loss is smooth)
    _check(
        x.grad.numpy(),
        _ref_sigmoid(logits) - target,
        ULPS * _eps(dtype),
        f"BCEWithLogitsLoss({np.dtype(dtype).name}) gradient",
    )


# ---------------------------------------------------------------------------------------------
# 2. Dtype preservation for every primitive


def _inputs(dtype):
    """Two (3, 4) leaves in [0.5, 1.5] (a safe domain for every op) and a mask."""
    rng = np.random.default_rng(7)
    a = tg.tensor((0.5 + rng.random((3, 4))).astype(dtype), requires_grad=True)
    b = tg.tensor((0.5 + rng.random((3, 4))).astype(dtype), requires_grad=True)
    return a, b, rng.random((3, 4)) > 0.5


def _index_put(a, b, m):
    t = a * 1.0
    t[1, [0, 2]] = b[0, :2]
    return t


def _img(t):
    """A (3, 4) leaf as a one-channel image (1, 1, 3, 4)."""
    return t.reshape(1, 1, 3, 4)


_CONV = dict(stride=(1, 1), padding=(0, 0, 0, 0), dilation=(1, 1), groups=1)
_POOL = dict(kernel_size=(2, 2), stride=(1, 1), padding=(0, 0, 0, 0), dilation=(1, 1))


def _pool(b):
    return P.pooling.max_pool2d(_img(b).numpy(), **_POOL)


# primitive -> a program using it through the public API (a, b: leaves of one dtype; m: a mask)
DTYPE_CASES = {
    "add": lambda a, b, m: a + b,
    "sub": lambda a, b, m: a - b,
    "mul": lambda a, b, m: a * b,
    "div": lambda a, b, m: a / b,
    "neg": lambda a, b, m: -a,
    "pow": lambda a, b, m: a**b,
    "exp": lambda a, b, m: a.exp(),
    "log": lambda a, b, m: a.log(),
    "sin": lambda a, b, m: a.sin(),
    "cos": lambda a, b, m: a.cos(),
    "tan": lambda a, b, m: a.tan(),
    "tanh": lambda a, b, m: a.tanh(),
    "sigmoid": lambda a, b, m: a.sigmoid(),
    "relu": lambda a, b, m: (a - 1.0).relu(),
    "leaky_relu": lambda a, b, m: tg.nn.functional.leaky_relu(a - 1.0, 0.2),
    "sqrt": lambda a, b, m: a.sqrt(),
    "abs": lambda a, b, m: (a - 1.0).abs(),
    "sign": lambda a, b, m: (a - 1.0).sign() * a,
    "maximum": lambda a, b, m: tg.maximum(a, b),
    "minimum": lambda a, b, m: tg.minimum(a, b),
    "clip": lambda a, b, m: a.clip(0.75, 1.25),
    "where": lambda a, b, m: tg.where(m, a, b),
    "cast": lambda a, b, m: a.astype(tg.float64).astype(a.dtype) * b,
    "matmul": lambda a, b, m: a @ b.T,
    "mv": lambda a, b, m: a @ b[0],
    "matmul_nt": lambda a, b, m: P.fused.matmul_nt(a, b),
    "matmul_tn": lambda a, b, m: P.fused.matmul_tn(a, b),
    "dot": lambda a, b, m: a[0] @ b[1],
    "linear": lambda a, b, m: tg.nn.functional.linear(a, b, b[:, 0]),
    "addmm_nt": lambda a, b, m: P.fused.addmm_nt(a[:, :3], a, b),
    "lstm_cell": lambda a, b, m: P.fused_recurrent.lstm_cell(a, b[:, :2].T.unsqueeze(-1)),
    "gru_cell": lambda a, b, m: P.fused_recurrent.gru_cell(
        a[:, :3], b[:, :3], b[:, 3:].T[..., None]
    ),
    "tanh_backward": lambda a, b, m: P.fused.tanh_backward(a, b.tanh()),
    "sigmoid_backward": lambda a, b, m: P.fused.sigmoid_backward(a, b.sigmoid()),
    "gelu": lambda a, b, m: tg.nn.functional.gelu(a - 1.0),
    "gelu_backward": lambda a, b, m: P.gelu.gelu_backward(a, b),
    "mse": lambda a, b, m: tg.nn.functional.mse_loss(a, b),
    "mse_backward": lambda a, b, m: P.fused.mse_backward(a.sum(), a, b, scale=-0.5),
    "log1p": lambda a, b, m: a.log1p(),
    "reciprocal": lambda a, b, m: 2.0 / a,
    "expm1": lambda a, b, m: a.expm1(),
    "log10": lambda a, b, m: a.log10(),
    "log2": lambda a, b, m: a.log2(),
    "contiguous": lambda a, b, m: a.t().contiguous() * b.t(),
    "floor_divide": lambda a, b, m: (a * 3 // b) * a,
    "remainder": lambda a, b, m: (a * 3) % b,
    "fill": lambda a, b, m: (a * b).fill_(2.0) * a,
    "erf": lambda a, b, m: (a - 1.0).erf(),
    "erfc": lambda a, b, m: (a - 1.0).erfc(),
    "sinh": lambda a, b, m: a.sinh(),
    "cosh": lambda a, b, m: a.cosh(),
    "asinh": lambda a, b, m: a.asinh(),
    "acosh": lambda a, b, m: (a + 1.0).acosh(),
    "atanh": lambda a, b, m: (a - 1.0).atanh(),
    "asin": lambda a, b, m: (a - 1.0).asin(),
    "acos": lambda a, b, m: (a - 1.0).acos(),
    "atan": lambda a, b, m: a.atan(),
    "exp2": lambda a, b, m: a.exp2(),
    "sinc": lambda a, b, m: a.sinc(),
    "logit": lambda a, b, m: (a * 0.5).logit(),
    "nan_to_num": lambda a, b, m: a.nan_to_num() * b,
    "atan2": lambda a, b, m: a.atan2(b),
    "hypot": lambda a, b, m: a.hypot(b),
    "logaddexp": lambda a, b, m: a.logaddexp(b),
    "logaddexp2": lambda a, b, m: a.logaddexp2(b),
    "xlogy": lambda a, b, m: a.xlogy(b),
    # special functions (primitives/special_functions.py)
    "lgamma": lambda a, b, m: a.lgamma(),
    "digamma": lambda a, b, m: a.digamma(),
    "polygamma": lambda a, b, m: a.polygamma(2),
    "zeta": lambda a, b, m: tg.special.zeta((b + 2.0).detach(), a),
    "erfinv": lambda a, b, m: ((a - 1.0) * 0.9).erfinv(),
    "erfcx": lambda a, b, m: tg.special.erfcx(a * 2.0 - 2.0),
    "ndtr": lambda a, b, m: tg.special.ndtr(a - 1.0),
    "ndtri": lambda a, b, m: tg.special.ndtri(a * 0.5),
    "log_ndtr": lambda a, b, m: tg.special.log_ndtr(a * 4.0 - 4.0),
    "i0": lambda a, b, m: a.i0(),
    "i1": lambda a, b, m: tg.special.i1(a),
    "i0e": lambda a, b, m: tg.special.i0e(a),
    "i1e": lambda a, b, m: tg.special.i1e(a),
    "entr": lambda a, b, m: tg.special.entr(a),
    "xlog1py": lambda a, b, m: tg.special.xlog1py(a, b),
    "gammainc": lambda a, b, m: tg.special.gammainc((b * 2.0).detach(), a * 3.0),
    "gammaincc": lambda a, b, m: tg.special.gammaincc((b * 2.0).detach(), a * 3.0),
    "fmod": lambda a, b, m: (a * 3).fmod(b),
    "copysign": lambda a, b, m: a.copysign(b - 1.0),
    "fmax": lambda a, b, m: tg.fmax(a, b),
    "fmin": lambda a, b, m: tg.fmin(a, b),
    "floor": lambda a, b, m: (a * 3).floor() * a,
    "ceil": lambda a, b, m: (a * 3).ceil() * a,
    "trunc": lambda a, b, m: (a * 3).trunc() * a,
    "round": lambda a, b, m: (a * 3).round(decimals=1) * a,
    "cumsum": lambda a, b, m: a.cumsum(1),
    "cumprod": lambda a, b, m: a.cumprod(1),
    "einsum": lambda a, b, m: tg.einsum("ij,kj->ik", a, b),
    "sum": lambda a, b, m: a.sum(axis=1),
    "mean": lambda a, b, m: a.mean(axis=0),
    "max": lambda a, b, m: a.max(axis=0),
    "min": lambda a, b, m: a.min(axis=1, keepdims=True),
    "prod": lambda a, b, m: a.prod(axis=1),
    "logsumexp": lambda a, b, m: a.logsumexp(axis=1),
    "reshape": lambda a, b, m: a.reshape(2, 6),
    "transpose": lambda a, b, m: a.T,
    "expand": lambda a, b, m: a.reshape(3, 1, 4).expand(3, 2, 4),
    "getitem": lambda a, b, m: a[[0, 0, 2]],
    "scatter_add": lambda a, b, m: a[[0, 0, 2], 1:],  # its backward is scatter_add
    "index_put": _index_put,
    "concatenate": lambda a, b, m: tg.cat([a, b], axis=1),
    "conv2d": lambda a, b, m: tg.nn.functional_conv.conv2d(
        _img(a), _img(b)[:, :, :2, :2], b[0, :1]
    ),
    "conv2d_input_grad": lambda a, b, m: P.nn.conv2d_input_grad(
        _img(a), _img(b)[:, :, :2, :2], input_shape=(1, 1, 4, 5), **_CONV
    ),
    "conv2d_weight_grad": lambda a, b, m: P.nn.conv2d_weight_grad(
        _img(a)[:, :, :2, :3], _img(b), weight_shape=(1, 1, 2, 2), **_CONV
    ),
    "normalize": lambda a, b, m: tg.nn.functional.layer_norm(a, (a.shape[-1],)),
    "affine_normalize": lambda a, b, m: tg.nn.functional.batch_norm(
        a, None, None, b[0], b[1], training=True
    ),
    "scaled_dot_product_attention": lambda a, b, m: tg.nn.functional.scaled_dot_product_attention(
        a, b, b * 0.5, attn_mask=(a @ b.T) * 0.1
    ),
    "max_pool2d": lambda a, b, m: tg.nn.functional_pooling.max_pool2d(_img(a), 2, 1),
    "max_pool2d_backward": lambda a, b, m: P.pooling.max_pool2d_backward(
        _img(a)[:, :, :2, :3], _img(b).numpy(), _pool(b), **_POOL
    ),
    "max_pool2d_gather": lambda a, b, m: P.pooling.max_pool2d_gather(
        _img(a), _img(b).numpy(), _pool(b), **_POOL
    ),
    "avg_pool2d": lambda a, b, m: tg.nn.functional_pooling.avg_pool2d(_img(a), 2, 1, 1),
    "avg_pool2d_backward": lambda a, b, m: P.pooling.avg_pool2d_backward(
        _img(a),
        input_shape=(1, 1, 6, 8),
        kernel_size=(2, 2),
        stride=(2, 2),
        padding=(0, 0, 0, 0),
        divisor=4,
    ),
    "nextafter": lambda a, b, m: a.nextafter(b),
}


def _spd(a):
    """a a^T + I: a (3, 3) positive-definite matrix of a's dtype, well-conditioned."""
    return a @ a.T + tg.eye(3, dtype=a.dtype)


# linear algebra: NumPy's LAPACK (and PyTorch's on CPU) has no float16; those refuse it clearly
LINALG_CASES = {
    "inv": lambda a, b, m: tg.linalg.inv(_spd(a)),
    "det": lambda a, b, m: tg.linalg.det(_spd(a)),
    "logabsdet": lambda a, b, m: tg.linalg.slogdet(_spd(a)).logabsdet,
    "solve": lambda a, b, m: tg.linalg.solve(_spd(a), b),
    "solve_triangular": lambda a, b, m: tg.linalg.solve_triangular(_spd(a), b, upper=True),
    "cholesky": lambda a, b, m: tg.linalg.cholesky(_spd(a)),
    "eigvalsh": lambda a, b, m: tg.linalg.eigvalsh(_spd(a)),
    "eigh_vectors": lambda a, b, m: tg.linalg.eigh(_spd(a)).eigenvectors.abs(),
    "svdvals": lambda a, b, m: tg.linalg.svdvals(a),
    "svd_u": lambda a, b, m: tg.linalg.svd(a, full_matrices=False).U.abs(),
    "svd_vh": lambda a, b, m: tg.linalg.svd(a, full_matrices=False).Vh.abs(),
    "pinv": lambda a, b, m: tg.linalg.pinv(a),
    "qr_q": lambda a, b, m: tg.linalg.qr(_spd(a)).Q,
    "qr_r": lambda a, b, m: tg.linalg.qr(a).R,
    "matrix_exp": lambda a, b, m: tg.linalg.matrix_exp(_spd(a) * 0.1),
    "lu_unpivoted": lambda a, b, m: tg.linalg.lu_factor(_spd(a)).LU,
    "lu_permutation": lambda a, b, m: tg.linalg.lu(a).P @ a,
    "geqrf_reflectors": lambda a, b, m: tg.geqrf(a).a,
    "geqrf_tau": lambda a, b, m: tg.geqrf(a).tau,
}
NO_DERIVATIVE = {"geqrf_reflectors", "geqrf_tau"}  # (as PyTorch: backward raises)
DTYPE_CASES.update(LINALG_CASES)
COMPOSITE_CASES = {
    "mean": lambda a, b, m: a.mean(axis=0),
    "var": lambda a, b, m: a.var(axis=1, ddof=1),
    "softmax": lambda a, b, m: a.softmax(-1),
    "log_softmax": lambda a, b, m: a.log_softmax(0),
    "stack": lambda a, b, m: tg.stack([a, b], 1),
}
NOT_TWICE_DIFFERENTIABLE = {"sign", "relu", "abs", "maximum", "minimum", "clip", "max", "min"}


def test_every_primitive_has_a_dtype_case():
    missing = sorted(set(REGISTRY) - set(DTYPE_CASES))
    assert not missing, f"primitives without a dtype-preservation case: {missing}"


def _backward_observing(out, seed):
    """run the engine on `out` and return every (node name, gradient dtype) it produced or
    received."""
    seen = []

    def observer(node, grad_out, grads_in):
        seen.append((node.name, "incoming", grad_out.dtype))
        seen.extend(
            (node.name, f"rule output {i}", g.dtype)
            for i, g in enumerate(grads_in or ())
            if g is not None and hasattr(g, "dtype")
        )

    run_backward([out.grad_fn], [seed], None, False, False, observer)
    return seen


@pytest.mark.parametrize("dtype", LOW, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("case", list(DTYPE_CASES) + list(COMPOSITE_CASES))
def test_dtype_preserved_forward_and_backward(case, dtype):
    fn = DTYPE_CASES.get(case) or COMPOSITE_CASES[case]
    a, b, m = _inputs(dtype)
    if case in LINALG_CASES and dtype == np.float16:
        with pytest.raises(RuntimeError, match="float32 or float64"):  # (or NotImplementedError)
            fn(a, b, m)
        return
    out = fn(a, b, m)
    assert out.dtype == dtype, f"{case}: forward gave {out.dtype} for {np.dtype(dtype).name} inputs"
    with np.errstate(all="ignore"):  # a loose value check against float64 on the same inputs
        a64, b64 = tg.tensor(a.numpy().astype(np.float64)), tg.tensor(b.numpy().astype(np.float64))
        ref = fn(a64, b64, m).numpy()
    assert np.allclose(
        out.numpy().astype(np.float64), ref, rtol=8 * _eps(dtype), atol=8 * _eps(dtype)
    )
    if case in NO_DERIVATIVE:
        with pytest.raises(NotImplementedError, match="not implemented"):
            out.sum().backward()
        return

    seed = tg.tensor(np.linspace(-1.0, 1.0, out.size).reshape(out.shape).astype(dtype))
    seen = _backward_observing(out, seed)
    # every gradient the engine hands to a rule, and every gradient a rule returns, is in `dtype`
    # (CastBackward excepted: in the cast case it sits between float64 and `dtype` on purpose)
    wrong = [s[:3] for s in seen if s[2] != dtype and s[0] != "CastBackward"]
    assert not wrong, f"{case}: gradients upcast inside backward: {wrong}"
    for name, leaf in (("a", a), ("b", b)):
        if leaf.grad is not None:
            assert leaf.grad.dtype == dtype, f"{case}: {name}.grad is {leaf.grad.dtype}"
    assert a.grad is not None, f"{case}: no gradient reached a"

    if case in NOT_TWICE_DIFFERENTIABLE:
        return
    a, b, m = _inputs(dtype)  # second order: grads of grads stay in dtype too
    out = fn(a, b, m)
    (ga,) = tg.autograd.grad((out * out).sum(), a, create_graph=True)
    assert ga.dtype == dtype and ga.requires_grad
    h = tg.autograd.grad(ga.sum(), [a, b], allow_unused=True)
    for g in h:
        assert g is None or g.dtype == dtype, f"{case}: second-order gradient is {g.dtype}"


SCALARS = {
    "python float": 2.0,
    "python int": 2,
    "np.float64": np.float64(2.0),
    "np.float32": np.float32(2.0),
    "np.int64": np.int64(2),
    "0-d float64 array": np.array(2.0),
}
SCALAR_OPS = {
    "x + s": lambda x, s: x + s,
    "s + x": lambda x, s: s + x,
    "x - s": lambda x, s: x - s,
    "s - x": lambda x, s: s - x,
    "x * s": lambda x, s: x * s,
    "s * x": lambda x, s: s * x,
    "x / s": lambda x, s: x / s,
    "s / x": lambda x, s: s / x,
    "x ** s": lambda x, s: x**s,
    "s ** x": lambda x, s: s**x,
    "x.pow(s)": lambda x, s: x.pow(s),
    "maximum(x, s)": lambda x, s: tg.maximum(x, s),
    "x.minimum(s)": lambda x, s: x.minimum(s),
    "x.clip(-s, s)": lambda x, s: x.clip(-s, s),
    "where(m, x, s)": lambda x, s: tg.where(x > 1.0, x, s),
    "where(m, s, x)": lambda x, s: tg.where(x > 1.0, s, x),
}


@pytest.mark.parametrize("dtype", LOW, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("scalar", list(SCALARS))
@pytest.mark.parametrize("op", list(SCALAR_OPS))
def test_scalars_never_upcast(op, scalar, dtype):
    x = tg.tensor(np.array([0.5, 1.5, 3.0], dtype=dtype), requires_grad=True)
    y = SCALAR_OPS[op](x, SCALARS[scalar])
    assert y.dtype == dtype, (
        f"{op} with a {scalar} scalar gave {y.dtype} for a {np.dtype(dtype).name} tensor"
    )
    y.sum().backward()
    assert x.grad.dtype == dtype


# ---------------------------------------------------------------------------------------------
# 3. Mixed precision: NumPy promotion forward, each input's own dtype backward

MIXED_OPS = {
    "add": lambda a, b: a + b,
    "sub": lambda a, b: a - b,
    "mul": lambda a, b: a * b,
    "div": lambda a, b: a / b,
    "pow": lambda a, b: a**b,
    "maximum": lambda a, b: tg.maximum(a, b),
    "minimum": lambda a, b: tg.minimum(a, b),
    "where": lambda a, b: tg.where(a > b, a, b),
    "matmul": lambda a, b: a @ b.T,
    "concatenate": lambda a, b: tg.cat([a, b], 0),
    "linear": lambda a, b: tg.nn.functional.linear(a, b, b[:, 0]),
    "stack": lambda a, b: tg.stack([a, b]),
}


@pytest.mark.parametrize(
    "pair",
    [
        (np.float16, np.float32),
        (np.float32, np.float16),
        (np.float16, np.float64),
        (np.float32, np.float64),
    ],
    ids=lambda p: f"{np.dtype(p[0]).name}-{np.dtype(p[1]).name}",
)
@pytest.mark.parametrize("op", list(MIXED_OPS))
def test_mixed_precision_promotes_forward_and_returns_grads_in_input_dtypes(op, pair):
    """float16 op float32 -> float32 (NumPy's promotion); a.grad is float16 and b.grad float32."""
    da, db = pair
    a = tg.tensor(np.array([[0.5, 1.25, 2.0]], dtype=da), requires_grad=True)
    b = tg.tensor(np.array([[1.5, 0.75, 1.0]], dtype=db), requires_grad=True)
    out = MIXED_OPS[op](a, b)
    assert out.dtype == np.promote_types(da, db), (
        f"{op}: {np.dtype(da).name} op {np.dtype(db).name} gave {out.dtype}"
    )
    out.sum().backward()
    assert a.grad is not None and a.grad.dtype == da, (
        f"{op}: a.grad is {getattr(a.grad, 'dtype', None)}"
    )
    assert b.grad is not None and b.grad.dtype == db, (
        f"{op}: b.grad is {getattr(b.grad, 'dtype', None)}"
    )
