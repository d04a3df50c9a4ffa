"""PyTorch's top-level names on tg.*, called as torch calls them: the functional spellings
(torch.dropout(x, p, train), torch.layer_norm, torch.kl_div(x, t, 1), ...), the in-place free
functions (torch.sinh_(x)), the questions about tensors and dtypes, the runtime settings,
torch.compile / torch.jit / torch.cpu, dtype aliases and constants. Values, dtypes, shapes,
structure and gradients are compared with PyTorch's on the same inputs; errors with its types."""

from __future__ import annotations

import math
import warnings
from typing import Any, Callable

import numpy as np
import pytest

import tapegrad as tg
from tapegrad.nn import functional as F
from tests.helpers import matches_pytorch, rand


def _torch() -> Any:
    return pytest.importorskip("torch", reason="compares with PyTorch when installed")


def _same(got: Any, want: Any) -> None:
    """Equal values, shape and dtype (a tensor of either library), or equal structure."""
    if isinstance(want, tuple | list):
        assert type(got) is type(want) and len(got) == len(want), (got, want)
        for a, b in zip(got, want):
            _same(a, b)
        return
    assert isinstance(got, tg.Tensor), got
    ref = want.detach().numpy()
    assert got.shape == ref.shape and got.dtype == ref.dtype, (got, want)
    assert np.allclose(got.numpy(), ref, equal_nan=True), (got, want)


# ---- the functional spellings: values and gradients against PyTorch ----------------------------
X3 = rand(2, 3, 5, seed=1)
X4 = rand(2, 4, 3, 3, seed=2)
W = rand(3, 3, seed=3)
GRADIENT_CASES: dict[str, tuple[Callable, list]] = {
    "dropout (eval)": (lambda m, x: m.dropout(x, 0.3, False), [X3]),
    "alpha_dropout (eval)": (lambda m, x: m.alpha_dropout(x, 0.3, False), [X3]),
    "feature_alpha_dropout (eval)": (lambda m, x: m.feature_alpha_dropout(x, 0.3, False), [X3]),
    "feature_dropout (eval)": (lambda m, x: m.feature_dropout(x, 0.3, False), [X3]),
    "conv1d": (lambda m, x, w: m.conv1d(x, w, None, 1, 1), [X3, rand(4, 3, 2, seed=4)]),
    "conv2d": (lambda m, x, w: m.conv2d(x, w, stride=2), [X4, rand(2, 4, 2, 2, seed=5)]),
    "conv3d": (lambda m, x, w: m.conv3d(x, w), [rand(1, 2, 3, 3, 3), rand(2, 2, 2, 2, 2, seed=6)]),
    "conv_transpose1d": (lambda m, x, w: m.conv_transpose1d(x, w, None, 2), [X3, rand(3, 2, 2)]),
    "conv_transpose2d": (lambda m, x, w: m.conv_transpose2d(x, w), [X4, rand(4, 2, 2, 2, seed=7)]),
    "conv_transpose3d": (
        lambda m, x, w: m.conv_transpose3d(x, w),
        [rand(1, 2, 2, 2, 2), rand(2, 1, 2, 2, 2, seed=8)],
    ),
    "embedding": (lambda m, w: m.embedding(w, m.tensor([[0, 2], [2, 1]]), 2), [W]),
    "layer_norm": (
        lambda m, x, w, b: m.layer_norm(x, [5], w, b, 1e-5, False),
        [X3, rand(5), rand(5)],
    ),
    "batch_norm": (
        lambda m, x, w, b: m.batch_norm(x, w, b, None, None, True, 0.1, 1e-5, False),
        [X3, rand(3), rand(3, seed=9)],
    ),
    "batch_norm (eval)": (
        lambda m, x: m.batch_norm(
            x,
            None,
            None,
            m.tensor([0.5, 0.0, 1.0], dtype=m.float64),
            m.tensor([2.0, 1.0, 0.5], dtype=m.float64),
            False,
            0.1,
            1e-5,
            False,
        ),
        [X3],
    ),
    "group_norm": (lambda m, x, w: m.group_norm(x, 2, w, None, 1e-5, True), [X4, rand(4)]),
    "instance_norm": (
        lambda m, x, w, b: m.instance_norm(x, w, b, None, None, True, 0.1, 1e-5, False),
        [X3, rand(3), rand(3, seed=10)],
    ),
    "rms_norm": (lambda m, x, w: m.rms_norm(x, [5], w), [X3, rand(5)]),
    "max_pool1d": (lambda m, x: m.max_pool1d(x, 2), [X3]),
    "max_pool1d (stride, padding)": (lambda m, x: m.max_pool1d(x, 3, 2, 1, 1, True), [X3]),
    "max_pool2d": (lambda m, x: m.max_pool2d(x, 2, 1), [X4]),
    "max_pool3d": (lambda m, x: m.max_pool3d(x, 2), [rand(1, 2, 3, 3, 3, seed=11)]),
    "max_pool1d_with_indices": (lambda m, x: m.max_pool1d_with_indices(x, 2)[0], [X3]),
    "avg_pool1d": (lambda m, x: m.avg_pool1d(x, 2, 1, 1, False, False), [X3]),
    "adaptive_avg_pool1d": (lambda m, x: m.adaptive_avg_pool1d(x, 3), [X3]),
    "adaptive_max_pool1d": (lambda m, x: m.adaptive_max_pool1d(x, 2)[0], [X3]),
    "pixel_shuffle": (lambda m, x: m.pixel_shuffle(x, 2), [X4]),
    "pixel_unshuffle": (lambda m, x: m.pixel_unshuffle(x, 3), [X4]),
    "channel_shuffle": (lambda m, x: m.channel_shuffle(x, 2), [X4]),
    "constant_pad_nd": (lambda m, x: m.constant_pad_nd(x, [1, 2, 0, 1], 0.5), [X3]),
    "cosine_similarity": (lambda m, x, y: m.cosine_similarity(x, y, 1, 1e-8), [W, rand(3, 3)]),
    "pairwise_distance": (
        lambda m, x, y: m.pairwise_distance(x, y, 1.5, 1e-6, True),
        [W, rand(3, 3)],
    ),
    "pdist": (lambda m, x: m.pdist(x, 2), [W]),
    "selu": (lambda m, x: m.selu(x), [X3]),
    "celu": (lambda m, x: m.celu(x, 0.7), [X3]),
    "prelu": (lambda m, x, w: m.prelu(x, w), [X3, np.array([0.1, 0.2, 0.3])]),
    "rrelu (eval)": (lambda m, x: m.rrelu(x, 0.1, 0.3), [X3]),
    "hardshrink": (lambda m, x: m.hardshrink(x, 0.4), [X3]),
    "threshold": (lambda m, x: m.threshold(x, 0.1, 2.0), [X3]),
    "kl_div": (lambda m, x, t: m.kl_div(x, t), [W, np.abs(rand(3, 3, seed=12))]),
    "kl_div (mean)": (lambda m, x, t: m.kl_div(x, t, 1), [W, np.abs(rand(3, 3, seed=12))]),
    "kl_div (sum, log_target)": (
        lambda m, x, t: m.kl_div(x, t, 2, log_target=True),
        [W, rand(3, 3)],
    ),
    "kl_div (none)": (lambda m, x, t: m.kl_div(x, t, 0), [W, np.abs(rand(3, 3, seed=13))]),
    "binary_cross_entropy_with_logits": (
        lambda m, x: m.binary_cross_entropy_with_logits(
            x, m.tensor(np.eye(3)), m.tensor(np.abs(rand(3))), m.tensor(np.abs(rand(3, seed=14))), 2
        ),
        [W],
    ),
    "binary_cross_entropy_with_logits (no reduction)": (
        lambda m, x: m.binary_cross_entropy_with_logits(x, m.tensor(np.eye(3))),
        [W],
    ),
    "cosine_embedding_loss (no reduction)": (
        lambda m, x, y: m.cosine_embedding_loss(x, y, m.tensor([1.0, -1.0, 1.0], dtype=m.float64)),
        [W, rand(3, 3, seed=15)],
    ),
    "triplet_margin_loss (no reduction)": (
        lambda m, a, p, n: m.triplet_margin_loss(a, p, n),
        [W, rand(3, 3, seed=18), rand(3, 3)],
    ),
    "ctc_loss (no reduction)": (
        lambda m, x: m.ctc_loss(x.log_softmax(2), m.tensor([[1, 2], [2, 2]]), [5, 5], [2, 2]),
        [rand(5, 2, 3, seed=20)],
    ),
    "cosine_embedding_loss": (
        lambda m, x, y: m.cosine_embedding_loss(
            x, y, m.tensor([1.0, -1.0, 1.0], dtype=m.float64), 0.1, 1
        ),
        [W, rand(3, 3, seed=15)],
    ),
    "hinge_embedding_loss": (
        lambda m, x: m.hinge_embedding_loss(x, m.tensor(np.sign(rand(3, 3, seed=16))), 0.5, 0),
        [W],
    ),
    "margin_ranking_loss": (
        lambda m, x, y: m.margin_ranking_loss(
            x, y, m.tensor([1.0, -1.0, 1.0], dtype=m.float64), 0.2, 2
        ),
        [rand(3), rand(3, seed=17)],
    ),
    "poisson_nll_loss": (
        lambda m, x: m.poisson_nll_loss(x, m.tensor(np.abs(W)), True, True, 1e-8, 1),
        [W],
    ),
    "triplet_margin_loss": (
        lambda m, a, p, n: m.triplet_margin_loss(a, p, n, 1.0, 2.0, 1e-6, True, 1),
        [W, rand(3, 3, seed=18), rand(3, 3, seed=19)],
    ),
    "ctc_loss": (
        lambda m, x: m.ctc_loss(
            x.log_softmax(2), m.tensor([[1, 2], [2, 2]]), [5, 5], [2, 2], 0, 1, False
        ),
        [rand(5, 2, 3, seed=20)],
    ),
    "ctc_loss (tensor lengths, sum)": (
        lambda m, x: m.ctc_loss(
            x.log_softmax(2), m.tensor([[1, 2], [2, 1]]), m.tensor([5, 4]), m.tensor([2, 1]), 0, 2
        ),
        [rand(5, 2, 3, seed=21)],
    ),
    "bilinear": (lambda m, x, y, w: m.bilinear(x, y, w), [W, rand(3, 2), rand(4, 3, 2, seed=22)]),
    "chain_matmul": (lambda m, a, b, c: m.chain_matmul(a, b, c), [W, rand(3, 2), rand(2, 4)]),
    "chain_matmul (one)": (lambda m, a: m.chain_matmul(a), [W]),
    "nuclear_norm": (lambda m, x: m.nuclear_norm(x), [X3]),
    "nuclear_norm (dim)": (lambda m, x: m.nuclear_norm(x, (0, 2), True), [X3]),
    "nuclear_norm (keepdim)": (lambda m, x: m.nuclear_norm(x, True), [W]),
    "frobenius_norm": (lambda m, x: m.frobenius_norm(x, (1, 2)), [X3]),
    "frobenius_norm (one dim)": (lambda m, x: m.frobenius_norm(x, 1, True), [X3]),
    "detach": (lambda m, x: m.detach(x) * x, [W]),
    "adjoint": (lambda m, x: m.adjoint(x), [X3]),
    "resolve_conj": (lambda m, x: m.resolve_conj(x) * 2, [W]),
    "resolve_neg": (lambda m, x: m.resolve_neg(x) * 2, [W]),
}


@pytest.mark.parametrize("name", list(GRADIENT_CASES))
def test_functional_spelling_matches_pytorch(name: str) -> None:
    fn, arrays = GRADIENT_CASES[name]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (PyTorch's and tapegrad's deprecation warnings)
        matches_pytorch(fn, arrays)


def test_tuple_results_are_plain_tuples_with_torch_indices() -> None:
    torch = _torch()
    for fn in (
        lambda m, x: m.max_pool1d_with_indices(x, 2, (), 0, 1, True),
        lambda m, x: m.adaptive_max_pool1d(x, 2),
    ):
        _same(fn(tg, tg.tensor(X3)), fn(torch, torch.tensor(X3)))
    for fn in (
        lambda m, x: m.unsafe_chunk(x, 2, 1),
        lambda m, x: m.unsafe_split(x, 2),
        lambda m, x: m.native_channel_shuffle(x, 2),  # (no gradient in PyTorch: values only)
    ):
        _same(fn(tg, tg.tensor(X4)), fn(torch, torch.tensor(X4)))


def test_dropout_train_is_required_and_draws_as_F() -> None:
    torch = _torch()
    x = tg.ones(4, 5)
    with pytest.raises(TypeError):
        tg.dropout(x, 0.5)  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        torch.dropout(torch.ones(4, 5), 0.5)
    tg.manual_seed(3)
    got = tg.dropout(x, 0.5, True)
    tg.manual_seed(3)
    assert np.array_equal(got.numpy(), F.dropout(x, 0.5, True).numpy())
    assert set(np.unique(got.numpy())) <= {0.0, 2.0}
    tg.manual_seed(4)
    channels = tg.feature_dropout(tg.ones(2, 6, 3), 0.5, True).numpy()
    assert all(len(set(row.tolist())) == 1 for row in channels.reshape(12, 3))  # (whole channels)
    y = tg.ones(3, 2)
    assert tg.dropout_(y, 1.0, True) is y and np.all(y.numpy() == 0)
    z = tg.ones(2, 3)
    assert tg.feature_dropout_(z, 0.0, True) is z
    for p in (1.5, -0.1):
        with pytest.raises(type(_error(lambda: torch.dropout(torch.ones(2), p, True)))):
            tg.dropout(tg.ones(2), p, True)
    with pytest.raises(RuntimeError):
        tg.feature_dropout(tg.ones(3), 0.5, True)
    with pytest.raises(RuntimeError):
        torch.feature_dropout(torch.ones(3), 0.5, True)


def _error(fn: Callable) -> BaseException:
    try:
        fn()
    except BaseException as e:  # noqa: BLE001  (the error PyTorch raises, whatever its type)
        return e
    raise AssertionError("expected an error")


def test_inplace_activations_match_pytorch() -> None:
    torch = _torch()
    for name, args in (
        ("selu_", ()),
        ("celu_", (0.5,)),
        ("rrelu_", (0.2, 0.4)),
        ("threshold_", (0.0, -1.0)),
    ):
        ours, theirs = tg.tensor(W), torch.tensor(W)
        assert getattr(tg, name)(ours, *args) is ours
        assert getattr(torch, name)(theirs, *args) is theirs
        _same(ours, theirs)
    with pytest.raises(ValueError, match="generator"):
        tg.rrelu(tg.tensor(W), generator=tg.Generator())


def test_reduction_names_are_refused_where_aten_takes_integers() -> None:
    torch = _torch()
    with pytest.raises(TypeError):
        tg.kl_div(tg.tensor(W), tg.tensor(W), "sum")  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        torch.kl_div(torch.tensor(W), torch.tensor(W), "sum")
    _same(
        tg.kl_div(tg.tensor(W), tg.tensor(W), 7), torch.kl_div(torch.tensor(W), torch.tensor(W), 7)
    )


def test_norm_and_chain_errors_match_pytorch() -> None:
    torch = _torch()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for fn in (
            lambda m: m.frobenius_norm(m.ones(2, 2, 2), (0, 1, 2)),
            lambda m: m.chain_matmul(),
        ):
            with pytest.raises(type(_error(lambda: fn(torch)))):
                fn(tg)
        with pytest.raises(TypeError):
            tg.frobenius_norm(tg.ones(2, 2))  # type: ignore[call-arg]
    with pytest.warns(UserWarning, match="deprecated"):
        tg.chain_matmul(tg.eye(2), tg.eye(2))


# ---- in-place free functions -------------------------------------------------------------------
POSITIVE = np.array([0.2, 0.5, 0.7])
INPLACE_CASES: dict[str, tuple[np.ndarray, tuple]] = {
    "acos_": (POSITIVE, ()), "asin_": (POSITIVE, ()), "atan_": (POSITIVE, ()),
    "acosh_": (POSITIVE + 1, ()), "asinh_": (POSITIVE, ()), "atanh_": (POSITIVE, ()),
    "arccos_": (POSITIVE, ()), "arcsin_": (POSITIVE, ()), "arctan_": (POSITIVE, ()),
    "arccosh_": (POSITIVE + 1, ()), "arcsinh_": (POSITIVE, ()), "arctanh_": (POSITIVE, ()),
    "sinh_": (POSITIVE, ()), "cosh_": (POSITIVE, ()), "deg2rad_": (POSITIVE, ()),
    "rad2deg_": (POSITIVE, ()), "erfc_": (POSITIVE, ()), "exp2_": (POSITIVE, ()),
    "fix_": (POSITIVE * 7 - 3, ()), "i0_": (POSITIVE, ()), "log10_": (POSITIVE, ()),
    "log2_": (POSITIVE, ()), "logit_": (POSITIVE, (0.25,)), "negative_": (POSITIVE, ()),
    "sinc_": (POSITIVE, ()), "clamp_min_": (POSITIVE, (0.4,)), "clamp_max_": (POSITIVE, (0.4,)),
    "nan_to_num_": (np.array([np.nan, np.inf, -np.inf, 1.0]), (0.5, 2.0)),
}  # fmt: skip


@pytest.mark.parametrize("name", list(INPLACE_CASES))
def test_inplace_free_function_matches_pytorch(name: str) -> None:
    torch = _torch()
    a, args = INPLACE_CASES[name]
    ours, theirs = tg.tensor(a), torch.tensor(a)
    assert getattr(tg, name)(ours, *args) is ours
    getattr(torch, name)(theirs, *args)
    _same(ours, theirs)


def test_inplace_functions_of_two_tensors_match_pytorch() -> None:
    torch = _torch()
    ints = np.array([4, 6, 9])
    for name, a, b in (
        ("gcd_", ints, np.array([6, 4, 3])),
        ("lcm_", ints, np.array([6, 4, 3])),
        ("ldexp_", POSITIVE, np.array([1, 2, 3])),
        ("xlogy_", POSITIVE, POSITIVE + 1),
    ):
        ours, theirs = tg.tensor(a), torch.tensor(a)
        getattr(tg, name)(ours, tg.tensor(b))
        getattr(torch, name)(theirs, torch.tensor(b))
        _same(ours, theirs)
    ours, theirs = tg.zeros(3, 3), torch.zeros(3, 3)
    idx = (np.array([0, 2, 0]), np.array([1, 1, 1]))
    values = np.array([1.0, 2.0, 3.0], dtype=np.float32)
    tg.index_put_(ours, tuple(tg.tensor(i) for i in idx), tg.tensor(values), True)
    torch.index_put_(theirs, tuple(torch.tensor(i) for i in idx), torch.tensor(values), True)
    _same(ours, theirs)
    ours, theirs = tg.ones(2), torch.ones(2)
    m, v = np.arange(6.0, dtype=np.float32).reshape(2, 3), np.ones(3, np.float32)
    tg.addmv_(ours, tg.tensor(m), tg.tensor(v), beta=0.5, alpha=2)
    torch.addmv_(theirs, torch.tensor(m), torch.tensor(v), beta=0.5, alpha=2)
    _same(ours, theirs)
    ours, theirs = tg.arange(6.0), torch.arange(6.0)
    _same(tg.as_strided_(ours, (2, 2), (1, 2), 1), torch.as_strided_(theirs, (2, 2), (1, 2), 1))


def test_inplace_gradient_flows_as_pytorch() -> None:
    torch = _torch()
    a = rand(4, seed=30) * 0.5
    x, tx = tg.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)
    y, ty = x * 1.0, tx * 1.0
    tg.sinh_(y)
    torch.sinh_(ty)
    (y * y).sum().backward()
    (ty * ty).sum().backward()
    assert np.allclose(x.grad.numpy(), tx.grad.numpy())
    d, td = x.detach(), tx.detach()
    assert tg.is_same_size(d, x) and not tg.detach(x).requires_grad
    z, tz = x * 2, tx * 2
    assert tg.detach_(z) is z and not z.requires_grad and z.grad_fn is None
    torch.detach_(tz)
    assert not tz.requires_grad and not d.requires_grad and not td.requires_grad


# ---- questions about tensors -------------------------------------------------------------------
def test_tensor_questions_match_pytorch() -> None:
    torch = _torch()
    samples = [
        np.ones((2, 3), np.float32),
        np.array([0.0]),
        np.array([3], np.uint8),
        np.array([True]),
    ]
    for a in samples:
        ours, theirs = tg.tensor(a), torch.tensor(a)
        for name in (
            "numel",
            "is_floating_point",
            "is_complex",
            "is_signed",
            "is_inference",
            "get_device",
        ):
            got, want = getattr(tg, name)(ours), getattr(torch, name)(theirs)
            assert got == want and type(got) is type(want), (name, a, got, want)
        if a.size == 1:
            assert tg.is_nonzero(ours) == torch.is_nonzero(theirs)
        assert tg.is_same_size(ours, tg.ones(2, 3)) == torch.is_same_size(theirs, torch.ones(2, 3))
    assert tg.is_tensor(tg.ones(1)) and tg.is_tensor(tg.nn.Parameter(tg.ones(1)))
    assert not tg.is_tensor([1.0]) and not tg.is_tensor(np.ones(1))
    assert tg.is_storage(tg.ones(1)) is False is torch.is_storage(torch.ones(1))
    for bad in (lambda m: m.is_nonzero(m.tensor([1.0, 2.0])), lambda m: m.is_nonzero(m.tensor([]))):
        with pytest.raises(RuntimeError):
            bad(torch)
        with pytest.raises(RuntimeError, match="ambiguous"):
            bad(tg)
    for name in ("numel", "is_floating_point", "is_signed", "is_complex", "get_device"):
        with pytest.raises(TypeError):
            getattr(torch, name)([1.0])
        with pytest.raises(TypeError, match="must be Tensor"):
            getattr(tg, name)([1.0])


def test_as_tensor_and_asarray_share_as_pytorch() -> None:
    torch = _torch()
    a = np.arange(3.0)
    t = tg.as_tensor(a)
    a[0] = 7.0
    assert t.dtype == np.float64 and t[0].item() == 7.0
    assert not np.shares_memory(tg.as_tensor(a, dtype=tg.float32).numpy(), a)
    x = tg.ones(2, requires_grad=True)
    assert tg.as_tensor(x) is x
    converted = tg.as_tensor(x, dtype=tg.float64)
    assert converted.dtype == np.float64 and converted.requires_grad
    for data in ([1, 2], 3.0, [[True, False]], 5):
        _same(tg.as_tensor(data), torch.as_tensor(data))
        _same(tg.asarray(data), torch.asarray(data))
    assert np.shares_memory(tg.asarray(a).numpy(), a)
    assert not np.shares_memory(tg.asarray(a, copy=True).numpy(), a)
    with pytest.raises(ValueError):
        torch.asarray(a, dtype=torch.float32, copy=False)
    with pytest.raises(ValueError, match="alias"):
        tg.asarray(a, dtype=tg.float32, copy=False)
    with pytest.raises(RuntimeError):
        torch.asarray([1, 2], requires_grad=True)
    with pytest.raises(RuntimeError):
        tg.asarray([1, 2], requires_grad=True)
    leafy = tg.asarray([1.0, 2.0], requires_grad=True)
    assert leafy.requires_grad and leafy.grad_fn is None
    assert not tg.asarray(x, requires_grad=False).requires_grad
    y = x * 2
    assert tg.asarray(y, copy=True, requires_grad=True).grad_fn is not None
    with pytest.raises(RuntimeError):
        tg.as_tensor([1.0], device="cuda")


# ---- dtypes ------------------------------------------------------------------------------------
def _dtype_name(d: Any) -> str:
    return str(d).replace("torch.", "")


def test_dtype_aliases_and_constants_match_pytorch() -> None:
    torch = _torch()
    assert tg.bool == np.bool_ and tg.ones(2, dtype=tg.bool).dtype == np.bool_
    assert tg.short == np.int16 and tg.zeros(1, dtype=tg.short).dtype == np.int16
    assert _dtype_name(torch.bool) == str(tg.bool) and _dtype_name(torch.short) == str(tg.short)
    for name in ("pi", "e", "inf"):
        assert getattr(tg, name) == getattr(torch, name) and type(getattr(tg, name)) is float
    assert math.isnan(tg.nan) and tg.newaxis is None is torch.newaxis
    assert tg.ones(2)[tg.newaxis].shape == (1, 2)


DTYPES = ["float16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8", "bool"]


def test_finfo_iinfo_match_pytorch() -> None:
    torch = _torch()
    for name in ("float16", "float32", "float64"):
        ours, theirs = tg.finfo(getattr(tg, name)), torch.finfo(getattr(torch, name))
        for field in (
            "bits",
            "eps",
            "max",
            "min",
            "tiny",
            "smallest_normal",
            "resolution",
            "dtype",
        ):
            assert getattr(ours, field) == getattr(theirs, field), (name, field)
        assert repr(ours) == repr(theirs)
    assert repr(tg.finfo()) == repr(torch.finfo()) and repr(tg.finfo(float)) == repr(
        torch.finfo(float)
    )
    for name in ("int8", "int16", "int32", "int64", "uint8"):
        ours, theirs = tg.iinfo(getattr(tg, name)), torch.iinfo(getattr(torch, name))
        assert (ours.bits, ours.min, ours.max, ours.dtype) == (
            theirs.bits,
            theirs.min,
            theirs.max,
            theirs.dtype,
        )
        assert repr(ours) == repr(theirs)
    for bad in (
        lambda m: m.finfo(m.int32),
        lambda m: m.iinfo(m.float32),
        lambda m: m.iinfo(m.bool),
    ):
        with pytest.raises(TypeError):
            bad(torch)
        with pytest.raises(TypeError):
            bad(tg)


def test_promotion_matches_pytorch() -> None:
    torch = _torch()
    for a in DTYPES:
        for b in DTYPES:
            got = tg.promote_types(getattr(tg, a), getattr(tg, b))
            assert str(got) == _dtype_name(
                torch.promote_types(getattr(torch, a), getattr(torch, b))
            ), (a, b)
            assert tg.can_cast(getattr(tg, a), getattr(tg, b)) == torch.can_cast(
                getattr(torch, a), getattr(torch, b)
            ), (a, b)
    operands: list[tuple[str, Any]] = [("number", 2), ("number", 2.5), ("number", True)]
    for name in DTYPES:
        operands.append(("0-d", name))
        operands.append(("n-d", name))

    def make(m: Any, kind: str, v: Any) -> Any:
        if kind == "number":
            return v
        shape = () if kind == "0-d" else (2,)
        return m.ones(shape, dtype=getattr(m, v))

    for k1, v1 in operands:
        for k2, v2 in operands:
            want = torch.result_type(make(torch, k1, v1), make(torch, k2, v2))
            got = tg.result_type(make(tg, k1, v1), make(tg, k2, v2))
            assert str(got) == _dtype_name(want), (k1, v1, k2, v2)
    with pytest.raises(TypeError):
        torch.result_type([1], 2)
    with pytest.raises(TypeError):
        tg.result_type([1], 2)


# ---- runtime settings --------------------------------------------------------------------------
def test_thread_settings_as_pytorch() -> None:
    torch = _torch()
    before = tg.get_num_threads()
    try:
        tg.set_num_threads(3)
        assert tg.get_num_threads() == 3
        tg.set_num_interop_threads(2)
        assert tg.get_num_interop_threads() == 2
    finally:
        tg.set_num_threads(before)
    for bad in (0, -1, 2.5, "a"):
        with pytest.raises(RuntimeError):
            torch.set_num_threads(bad)
        with pytest.raises(RuntimeError):
            tg.set_num_threads(bad)  # type: ignore[arg-type]


def test_matmul_precision_default_device_denormals() -> None:
    torch = _torch()
    assert tg.get_float32_matmul_precision() == torch.get_float32_matmul_precision() == "highest"
    try:
        tg.set_float32_matmul_precision("medium")
        assert tg.get_float32_matmul_precision() == "medium"
        with pytest.warns(UserWarning, match="not one of"):
            tg.set_float32_matmul_precision("HIGH")
        assert tg.get_float32_matmul_precision() == "medium"
    finally:
        tg.set_float32_matmul_precision("highest")
    assert tg.get_default_device() == tg.device("cpu") and str(torch.get_default_device()) == "cpu"
    tg.set_default_device("cpu")
    tg.set_default_device(None)
    with pytest.raises(RuntimeError, match="CPU"):
        tg.set_default_device("cuda")
    assert tg.set_flush_denormal(False) is True and tg.set_flush_denormal(True) is False


def test_warn_deterministic_and_anomaly_flags_as_pytorch() -> None:
    torch = _torch()
    for m in (tg, torch):
        try:
            assert m.is_warn_always_enabled() is False
            m.set_warn_always(True)
            assert m.is_warn_always_enabled() is True
        finally:
            m.set_warn_always(False)
        try:
            assert (m.are_deterministic_algorithms_enabled(), m.get_deterministic_debug_mode()) == (
                False,
                0,
            )
            m.use_deterministic_algorithms(True, warn_only=True)
            assert m.is_deterministic_algorithms_warn_only_enabled()
            assert m.get_deterministic_debug_mode() == 1
            m.set_deterministic_debug_mode("error")
            assert (
                m.get_deterministic_debug_mode() == 2 and m.are_deterministic_algorithms_enabled()
            )
            m.set_deterministic_debug_mode(0)
            assert not m.are_deterministic_algorithms_enabled()
            for bad in ("bogus", 5):
                with pytest.raises(RuntimeError):
                    m.set_deterministic_debug_mode(bad)
        finally:
            m.use_deterministic_algorithms(False)
        try:
            assert m.is_anomaly_enabled() is False and m.is_anomaly_check_nan_enabled() is True
            m.set_anomaly_enabled(True)
            assert m.is_anomaly_enabled() and m.is_anomaly_check_nan_enabled()
            m.set_anomaly_enabled(True, False)
            assert m.is_anomaly_enabled() and not m.is_anomaly_check_nan_enabled()
        finally:
            m.set_anomaly_enabled(False)
        assert m.is_anomaly_enabled() is False


def test_set_anomaly_enabled_catches_nan_in_backward() -> None:
    x = tg.tensor([0.0], requires_grad=True)
    tg.set_anomaly_enabled(True)
    try:
        y = tg.sqrt(x) * 0.0
        with pytest.raises(RuntimeError):
            y.sum().backward()
    finally:
        tg.set_anomaly_enabled(False)
    assert not tg.autograd.is_anomaly_enabled()


# ---- torch.compile, torch.jit, torch.cpu -------------------------------------------------------
def test_compile_returns_the_callable_as_it_is() -> None:
    net = tg.nn.Linear(2, 3)
    assert tg.compile(net) is net
    assert (
        tg.compile(net, fullgraph=True, dynamic=False, backend="inductor", mode="max-autotune")
        is net
    )

    @tg.compile
    def f(x: tg.Tensor) -> tg.Tensor:
        return x * 2

    @tg.compile(mode="reduce-overhead")
    def g(x: tg.Tensor) -> tg.Tensor:
        return x + 1

    assert f(tg.ones(2)).tolist() == [2.0, 2.0] and g(tg.ones(2)).tolist() == [2.0, 2.0]
    torch = _torch()
    for bad in (lambda m: m.compile(3), lambda m: m.compile(abs, mode="default", options={})):
        with pytest.raises(type(_error(lambda: bad(torch)))):
            bad(tg)


def test_jit_decorators_and_questions() -> None:
    class Net(tg.nn.Module):
        @tg.jit.ignore
        def helper(self, x: Any) -> Any:
            return x

        @tg.jit.ignore(drop=True)
        def dropped(self) -> int:
            return 1

        @tg.jit.unused
        def unused(self) -> int:
            return 2

        @tg.jit.export
        def exported(self) -> int:
            return 3

        def forward(self, x: tg.Tensor) -> tg.Tensor:
            return x if tg.jit.is_scripting() or tg.jit.is_tracing() else self.helper(x) * 2

    net = Net()
    assert tg.jit.script(net) is net and tg.jit.trace(net, (tg.ones(1),)) is net
    assert net(tg.ones(2)).tolist() == [2.0, 2.0]
    assert (net.dropped(), net.unused(), net.exported()) == (1, 2, 3)
    assert tg.jit.annotate(list, []) == []
    torch = _torch()
    assert torch.jit.is_scripting() is tg.jit.is_scripting() is False
    with pytest.raises(RuntimeError, match="tg.save"):
        tg.jit.save(net, "net.pt")
    with pytest.raises(RuntimeError, match="tg.load"):
        tg.jit.load("net.pt")


def test_cpu_module_as_pytorch() -> None:
    torch = _torch()
    for name in ("is_available", "is_initialized", "device_count", "current_device", "synchronize"):
        assert getattr(tg.cpu, name)() == getattr(torch.cpu, name)(), name
    tg.cpu.set_device("cpu")
    with pytest.raises(RuntimeError):
        tg.cpu.synchronize("cuda")


# ---- torch.typename, torch.range, torch.autocast -----------------------------------------------
def test_typename_matches_pytorch() -> None:
    torch = _torch()
    for name in DTYPES:
        assert tg.typename(tg.ones(1, dtype=getattr(tg, name))) == torch.typename(
            torch.ones(1, dtype=getattr(torch, name))
        ), name
    assert tg.typename(tg.nn.Parameter(tg.ones(1))) == "torch.FloatTensor"
    for obj in (len, 3, "s", math.sqrt, np.ones):
        assert tg.typename(obj) == torch.typename(obj)
    assert tg.typename(tg.nn.Linear) == "tapegrad.nn.layers.Linear"


def test_range_matches_pytorch() -> None:
    torch = _torch()
    calls: list[tuple[tuple, dict]] = [
        ((0, 1, 0.3), {}),
        ((3, 0, -1), {}),
        ((0, 0), {}),
        ((1, 4), {"dtype": "int64"}),
        ((0.5, 2.5, 0.5), {"dtype": "float64"}),
    ]
    for args, kwargs in calls:
        with pytest.warns(UserWarning, match="deprecated"):
            got = tg.range(*args, **{k: getattr(tg, v) for k, v in kwargs.items()})
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            want = torch.range(*args, **{k: getattr(torch, v) for k, v in kwargs.items()})
        _same(got, want)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for bad in ((0, 3, 0), (3, 0)):
            with pytest.raises(RuntimeError):
                torch.range(*bad)
            with pytest.raises(RuntimeError):
                tg.range(*bad)
        assert tg.range(0, 1, 0.5, requires_grad=True).requires_grad


def test_autocast_is_disabled_as_on_a_cpu_only_pytorch() -> None:
    torch = _torch()
    for m in (tg, torch):
        with pytest.warns(UserWarning, match="Disabling autocast"):
            region = m.autocast("cuda")
        with region:
            assert m.is_autocast_enabled() is False
            assert (m.ones(2, 2) @ m.ones(2, 2)).dtype == m.float32
        with m.autocast("cpu", enabled=False):
            assert not m.is_autocast_enabled("cpu")
        with pytest.warns(UserWarning, match="not supported"):
            m.autocast("cpu", dtype=m.float64)
        with pytest.raises(RuntimeError):
            m.autocast("bogus")
        with pytest.raises(ValueError):
            m.autocast(3)  # type: ignore[arg-type]
        assert str(m.get_autocast_dtype("cuda")).endswith("float16")
        assert repr(m.get_autocast_dtype("cpu")).endswith("bfloat16")

    @tg.autocast("cpu", enabled=False)
    def f(x: tg.Tensor) -> tg.Tensor:
        return x * 2

    assert f(tg.ones(2)).tolist() == [2.0, 2.0]
    for dtype in (tg.bfloat16, tg.float16, None):
        with pytest.raises(RuntimeError, match="enabled=False"):
            tg.autocast("cpu", dtype=dtype)


# ---- legacy tensor types -----------------------------------------------------------------------
LEGACY = ["FloatTensor", "DoubleTensor", "HalfTensor", "ByteTensor", "CharTensor", "ShortTensor"]
LEGACY += ["IntTensor", "LongTensor", "BoolTensor"]


def test_legacy_tensor_types_match_pytorch() -> None:
    torch = _torch()
    for name in LEGACY:
        ours, theirs = getattr(tg, name), getattr(torch, name)
        for data in ([1.7, 0, 2], [[1, 0], [3, 4]], (2, 3), np.array([0.5, 1.0])):
            _same(ours(data), theirs(data))
        for sizes in ((2, 3), (4,), ()):
            got, want = ours(*sizes), theirs(*sizes)
            assert got.shape == tuple(want.shape) and got.dtype == want.numpy().dtype
        for dtype in DTYPES:
            x, tx = tg.ones(2, dtype=getattr(tg, dtype)), torch.ones(2, dtype=getattr(torch, dtype))
            assert isinstance(x, ours) == isinstance(tx, theirs), (name, dtype)
        assert tg.typename(ours([1])) == torch.typename(theirs([1])) == f"torch.{name}"
        with pytest.raises(TypeError):
            theirs(2.5)
        with pytest.raises(TypeError, match="sequence"):
            ours(2.5)
    x = tg.ones(2, requires_grad=True)
    alias = tg.FloatTensor(x)
    assert np.shares_memory(alias.numpy(), x.numpy()) and not alias.requires_grad
    with pytest.raises(TypeError):
        torch.LongTensor(torch.ones(2))
    with pytest.raises(TypeError):
        tg.LongTensor(x)
    assert not isinstance(tg.ones(1), tg.DoubleTensor) and isinstance(
        tg.nn.Parameter(x), tg.FloatTensor
    )
    assert tg.ones(2).type(tg.DoubleTensor).dtype == np.float64
    with pytest.raises(RuntimeError):
        tg.FloatTensor(2, device="cuda")


def test_set_default_tensor_type_as_pytorch() -> None:
    torch = _torch()
    try:
        for m in (tg, torch):
            with pytest.warns(UserWarning, match="deprecated"):
                m.set_default_tensor_type(m.DoubleTensor)
            assert str(m.get_default_dtype()).endswith("float64")
            assert m.tensor([1.5]).dtype == m.float64
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                m.set_default_tensor_type("torch.FloatTensor")
                assert str(m.get_default_dtype()).endswith("float32")
                for bad in (m.LongTensor, "torch.cuda.FloatTensor"):
                    with pytest.raises(TypeError):
                        m.set_default_tensor_type(bad)
    finally:
        tg.set_default_dtype(tg.float32)
        torch.set_default_dtype(torch.float32)


# ---- torch.accelerator and small questions -----------------------------------------------------
def test_accelerator_as_on_a_cpu_only_pytorch() -> None:
    torch = _torch()
    assert tg.accelerator.is_available() is torch.accelerator.is_available() is False
    assert tg.accelerator.current_accelerator() is torch.accelerator.current_accelerator() is None
    assert tg.accelerator.device_count() == torch.accelerator.device_count() == 0
    for name, args in (
        ("current_device_index", ()),
        ("current_device_idx", ()),
        ("set_device_index", (0,)),
        ("set_device_idx", (0,)),
        ("current_stream", ()),
        ("synchronize", ()),
    ):
        with pytest.raises(RuntimeError):
            getattr(torch.accelerator, name)(*args)
        with pytest.raises(RuntimeError, match="none is available"):
            getattr(tg.accelerator, name)(*args)


def test_is_distributed_cudnn_is_acceptable_conj_physical_as_pytorch() -> None:
    torch = _torch()
    for name in ("is_distributed", "cudnn_is_acceptable"):
        assert getattr(tg, name)(tg.ones(2)) is getattr(torch, name)(torch.ones(2)) is False
    _same(tg.conj_physical(tg.tensor(W)), torch.conj_physical(torch.tensor(W)))
    matches_pytorch(lambda m, x: m.conj_physical(x) * x, [W])


# ---- torch.testing.assert_close ----------------------------------------------------------------
def _assert_close_cases(m: Any) -> list[tuple[Any, Any, dict]]:
    t = m.tensor
    nan, inf = float("nan"), float("inf")
    return [
        (t([1.0, 2, 3]), t([1.0, 2, 3.1]), {}),
        (t([1.0, 2, 3]), t([1.0, 2, 3 + 1e-7]), {}),
        (t([1.0, 2]), t([1.0, 2.0], dtype=m.float64), {}),
        (t([1.0, 2]), t([1.0, 2.0], dtype=m.float64), {"check_dtype": False}),
        (m.ones(2), m.ones(3), {}),
        (t(1.0), 1.0, {}),
        (1, 1.0, {}),
        (1.0, 1.0 + 1e-8, {}),
        (1, 2, {}),
        ([m.ones(1)], [m.ones(1), m.ones(1)], {}),
        ({"a": m.ones(1)}, {"a": m.ones(1)}, {}),
        ({"a": m.ones(1)}, {"b": m.ones(1)}, {}),
        (t([nan]), t([nan]), {}),
        (t([nan]), t([nan]), {"equal_nan": True}),
        (t([inf, -inf]), t([inf, -inf]), {}),
        (m.ones(2), m.ones(2), {"rtol": 0.1}),
        (m.ones(2), m.ones(2) * 1.1, {"rtol": 0.2, "atol": 0}),
        (t([1, 2]), t([1, 3]), {}),
        (t([True]), t([False]), {}),
        (t([1.0, 2.0], dtype=m.float16), t([1.0, 2.001], dtype=m.float16), {}),
        (np.ones(2), np.ones(2), {}),
        (m.ones(2), np.ones(2), {}),
        ("a", "a", {}),
        (None, None, {}),
        ((1, 2), [1, 2], {}),
        (m.ones(2, 2), m.ones(2, 2).t(), {}),
        (m.ones(2), m.ones(2) + 1, {"msg": "custom"}),
    ]


def test_assert_close_agrees_with_pytorch() -> None:
    torch = _torch()
    for (a, e, kw), (ta, te, tkw) in zip(_assert_close_cases(tg), _assert_close_cases(torch)):
        want = None
        try:
            torch.testing.assert_close(ta, te, **tkw)
        except (AssertionError, TypeError, ValueError) as error:
            want = error
        if want is None:
            tg.testing.assert_close(a, e, **kw)
            continue
        with pytest.raises(type(want)) as got:
            tg.testing.assert_close(a, e, **kw)
        first = str(want).splitlines()[0]
        if "shape" not in first and "dtype" not in first and "No comparison" not in first:
            assert str(got.value).splitlines()[0] == first, (str(got.value), str(want))
