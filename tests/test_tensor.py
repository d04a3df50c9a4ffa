"""Tensor: construction and dtypes, dtype preservation through forward and backward, repr,
conversions, shape methods, reflected operators, comparisons, in-place ops and factories."""

from __future__ import annotations

import numpy as np
import pytest

import tapegrad as tg


# ---- construction and dtypes --------------------------------------------------------------------
def test_python_floats_default_to_float32():
    assert tg.tensor(1.5).dtype == tg.float32
    assert tg.tensor([1.0, 2.0]).dtype == tg.float32
    assert tg.tensor([[1, 2.5], [3, 4]]).dtype == tg.float32
    assert tg.Tensor([1.0]).dtype == tg.float32


def test_ints_stay_int64_and_bools_stay_bool():
    assert tg.tensor(3).dtype == tg.int64
    assert tg.tensor([1, 2, 3]).dtype == tg.int64
    assert tg.tensor([True, False]).dtype == tg.bool_


def test_numpy_arrays_keep_their_dtype():
    for dt in (np.float16, np.float32, np.float64, np.int32, np.int64, np.bool_):
        assert tg.tensor(np.zeros(3, dtype=dt)).dtype == np.dtype(dt)
    assert tg.tensor(np.float64(2.0)).dtype == tg.float64


def test_explicit_dtype_in_every_spelling():
    for spelling in (tg.float64, np.float64, "float64", "double", "torch.float64"):
        assert tg.tensor([1, 2], dtype=spelling).dtype == tg.float64
    assert tg.tensor([1.5], dtype=int).dtype == tg.int64
    assert tg.tensor([1, 2], dtype=float).dtype == tg.float32


def test_constructor_copies_numpy_data():
    a = np.ones(3, dtype=np.float32)
    t = tg.tensor(a)
    a[0] = 5
    assert t.tolist() == [1.0, 1.0, 1.0]


def test_tensor_from_list_of_tensors():
    t = tg.tensor([tg.tensor(1.0), tg.tensor(2.0)])
    assert t.tolist() == [1.0, 2.0] and t.dtype == tg.float32


def test_float32_preserved_with_python_and_numpy_scalars_forward_and_backward():
    x = tg.tensor([1.0, 2.0], requires_grad=True)
    outs = [
        x * 2,
        2 * x,
        x * np.float64(2),
        np.float64(2) * x,
        x + 1,
        1 - x,
        x / 3,
        3 / x,
        x**2,
        2.0**x,
        x * np.array(2.0),
        x * np.int64(3),
        tg.where(x > 1, x, 0.5),
        x.maximum(1.5),
        x.clip(0, 1.5),
        x.mean(),
        x.var(),
        x.softmax(),
        x.log_softmax(),
        x.sigmoid(),
        x.tanh(),
        -x,
        x * np.float64(1e30),
        x.clip(np.float64(0.5), np.float64(1.5)),
        x.clip(np.array(0.5), np.int64(2)),
        x.clip(max=tg.tensor(1.5, dtype=tg.float64)),
    ]
    for y in outs:
        assert y.dtype == tg.float32, y
        (g,) = tg.autograd.grad(y.sum(), x)
        assert g.dtype == tg.float32, y
    loss = (x * np.float64(2) + 1.5).sum()
    loss.backward()
    assert x.grad.dtype == tg.float32


def test_float16_stays_float16_forward_and_backward():
    x = tg.tensor([1.0, 2.0], dtype=tg.float16, requires_grad=True)
    y = ((x * 2.5).exp() / 3 + x.sin()).sum()
    assert y.dtype == tg.float16
    y.backward()
    assert x.grad.dtype == tg.float16
    np.testing.assert_allclose(
        x.grad.numpy().astype(np.float64),
        2.5 * np.exp([2.5, 5.0]) / 3 + np.cos([1.0, 2.0]),
        rtol=1e-2,
    )


def test_float64_tensor_mixed_with_float32_promotes_and_grads_keep_each_dtype():
    a = tg.tensor([1.0, 2.0], requires_grad=True)
    b = tg.tensor([3.0, 4.0], dtype=tg.float64, requires_grad=True)
    y = (a * b).sum()
    assert y.dtype == tg.float64
    y.backward()
    assert a.grad.dtype == tg.float32 and b.grad.dtype == tg.float64
    assert a.grad.tolist() == [3.0, 4.0]


@pytest.mark.parametrize("data", [[1, 2], [True, False]])
def test_integer_and_bool_tensors_cannot_require_grad(data):
    with pytest.raises(TypeError, match="floating-point"):
        tg.tensor(data, requires_grad=True)
    t = tg.tensor(data)
    with pytest.raises(TypeError, match="floating-point"):
        t.requires_grad = True
    with pytest.raises(TypeError, match="floating-point"):
        t.requires_grad_()
    with pytest.raises(TypeError):
        tg.arange(3, requires_grad=True)


def test_attributes():
    x = tg.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
    assert x.shape == (2, 3) and x.ndim == 2 and x.size == 6 and x.dtype == tg.float32
    assert x.is_leaf and x.grad is None and x.grad_fn is None and x.requires_grad
    assert isinstance(x.numpy(), np.ndarray)
    y = x * 2
    assert not y.is_leaf and y.grad_fn.name == "MulBackward" and y.requires_grad
    assert x.detach().requires_grad is False and x.detach().is_leaf
    assert not np.shares_memory(x.numpy(), (x * 1).numpy())


def test_integer_inputs_to_float_functions_give_floats():
    assert tg.tensor([0, 1]).sigmoid().tolist() == pytest.approx([0.5, 0.7310586])
    assert tg.tensor([0, 1]).exp().dtype.kind == "f"
    assert tg.tensor([1, 4]).sqrt().tolist() == [1.0, 2.0]


# ---- repr ----------------------------------------------------------------------------------------
def test_repr_shows_values_dtype_and_grad_fn():
    assert repr(tg.tensor([1.0, 2.0])) == "tensor([1., 2.])"
    assert repr(tg.tensor([1, 2])) == "tensor([1, 2])"  # (int64 is a default dtype, as PyTorch)
    assert repr(tg.tensor([1, 2], dtype=tg.int32)) == "tensor([1, 2], dtype=int32)"
    assert repr(tg.tensor([1.5], dtype=tg.float64)) == "tensor([1.5000], dtype=float64)"
    x = tg.tensor([1.0, 2.0], requires_grad=True)
    assert repr(x) == "tensor([1., 2.], requires_grad=True)"
    assert repr(x * 2) == "tensor([2., 4.], grad_fn=<MulBackward>)"
    assert repr(x + 1) == "tensor([2., 3.], grad_fn=<AddBackward>)"
    assert "grad_fn=<SumBackward>" in repr(x.sum())
    assert "grad_fn=<DotBackward>" in repr(x @ x)  # (as PyTorch names vector . vector)
    assert repr(tg.tensor(3.0)) == "tensor(3.)"
    assert str(x * 2) == repr(x * 2)
    assert f"{tg.tensor(2.0):.2f}" == "2.00"


# ---- conversions ---------------------------------------------------------------------------------
def test_item_tolist_numpy_float():
    t = tg.tensor([[2.5]])
    assert t.item() == 2.5 and isinstance(t.item(), float)
    assert tg.tensor([1, 2]).tolist() == [1, 2]
    assert float(tg.tensor(1.5)) == 1.5 and int(tg.tensor(3)) == 3
    with pytest.raises(ValueError, match="exactly one element"):
        tg.tensor([1.0, 2.0]).item()
    assert np.asarray(tg.tensor([1.0, 2.0])).dtype == np.float32


def test_len_and_iteration():
    x = tg.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], requires_grad=True)
    assert len(x) == 3
    rows = list(x)
    assert [r.tolist() for r in rows] == [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]
    sum(r.sum() * (i + 1) for i, r in enumerate(rows)).backward()
    assert x.grad.tolist() == [[1.0, 1.0], [2.0, 2.0], [3.0, 3.0]]
    with pytest.raises(TypeError):
        len(tg.tensor(1.0))


# ---- shape methods -------------------------------------------------------------------------------
def test_shape_methods_take_varargs_or_a_tuple():
    x = tg.tensor(np.arange(6.0))
    assert x.reshape(2, 3).shape == x.reshape((2, 3)).shape == x.reshape([2, 3]).shape == (2, 3)
    assert x.view(3, -1).shape == (3, 2)
    m = x.reshape(2, 3)
    assert m.permute(1, 0).shape == m.permute((1, 0)).shape == (3, 2)
    r = tg.tensor([1.0, 2.0, 3.0])
    assert r.expand(4, 3).shape == r.expand((4, 3)).shape == (4, 3)
    assert r.expand(2, -1).shape == (2, 3)
    assert tg.zeros(2, 3).shape == tg.zeros((2, 3)).shape == (2, 3)


def test_T_transpose_permute():
    a = np.arange(24.0).reshape(2, 3, 4)
    x = tg.tensor(a)
    np.testing.assert_array_equal(x.T.numpy(), a.T)
    np.testing.assert_array_equal(x.transpose(0, 1).numpy(), a.transpose(1, 0, 2))
    np.testing.assert_array_equal(x.transpose(-1, 0).numpy(), np.swapaxes(a, -1, 0))
    np.testing.assert_array_equal(x.permute(2, 0, 1).numpy(), a.transpose(2, 0, 1))
    m = tg.tensor([[1.0, 2.0, 3.0]])
    assert m.T.shape == (3, 1) and m.transpose().shape == (3, 1)
    assert tg.tensor(1.0).T.shape == ()


def test_expand_split_chunk_squeeze_unsqueeze_flatten():
    r = tg.tensor([1.0, 2.0, 3.0], requires_grad=True)
    e = r.expand(4, 3)
    assert e.shape == (4, 3) and e.tolist()[3] == [1.0, 2.0, 3.0]
    e.sum().backward()
    assert r.grad.tolist() == [4.0, 4.0, 4.0]
    x = tg.tensor(np.arange(10.0).reshape(5, 2))
    assert [p.shape for p in x.split(2)] == [(2, 2), (2, 2), (1, 2)]
    assert [p.shape for p in x.split([1, 4])] == [(1, 2), (4, 2)]
    assert [p.shape for p in x.split(1, dim=1)] == [(5, 1), (5, 1)]
    assert [p.shape for p in x.chunk(2)] == [(3, 2), (2, 2)]
    assert tg.zeros(1, 3, 1).squeeze().shape == (3,)
    assert tg.zeros(1, 3, 1).squeeze(-1).shape == (1, 3)
    assert tg.zeros(3).unsqueeze(0).shape == (1, 3) and tg.zeros(3).unsqueeze(-1).shape == (3, 1)
    assert tg.zeros(2, 3, 4).flatten().shape == (24,)
    assert tg.zeros(2, 3, 4).flatten(1).shape == (2, 12)


def test_astype_is_differentiable_between_floats():
    x = tg.tensor([1.0, 2.0], requires_grad=True)
    y = x.astype(tg.float64)
    assert y.dtype == tg.float64 and y.grad_fn.name == "CastBackward"
    (y * y).sum().backward()
    assert x.grad.dtype == tg.float32 and x.grad.tolist() == [2.0, 4.0]
    assert x.astype(tg.float32) is x
    i = x.astype(tg.int64)
    assert i.dtype == tg.int64 and not i.requires_grad
    assert x.double().dtype == tg.float64 and x.half().dtype == tg.float16


# ---- operators -----------------------------------------------------------------------------------
def test_reflected_ops_with_numpy_arrays_on_the_left():
    t = tg.tensor([1.0, 2.0], requires_grad=True)
    a = np.array([10.0, 20.0], dtype=np.float32)
    for expr, expected in [
        (a + t, [11, 22]),
        (a - t, [9, 18]),
        (a * t, [10, 40]),
        (a / t, [10, 10]),
        (a**t, [10, 400]),
    ]:
        assert isinstance(expr, tg.Tensor) and expr.requires_grad
        np.testing.assert_allclose(expr.numpy(), expected)
    m = np.eye(2, dtype=np.float32)
    out = m @ t
    assert isinstance(out, tg.Tensor) and out.tolist() == [1.0, 2.0]
    (a * t).sum().backward()
    assert t.grad.tolist() == [10.0, 20.0]


def test_comparisons_give_bool_tensors_without_grad():
    x = tg.tensor([1.0, 2.0, 3.0], requires_grad=True)
    for c in (
        x > 2,
        x >= 2,
        x < 2,
        x <= 2,
        x == 2,
        x != 2,
        2 < x,
        np.float32(2) > x,
        x > tg.tensor([0.0, 5.0, 1.0]),
    ):
        assert isinstance(c, tg.Tensor) and c.dtype == tg.bool_
        assert not c.requires_grad and c.grad_fn is None
    assert (x > 2).tolist() == [False, False, True]
    assert (np.array([2.0, 2.0, 2.0]) < x).tolist() == [False, False, True]
    assert ((x > 1) & (x < 3)).tolist() == [False, True, False]
    assert (~(x > 1)).tolist() == [True, False, False]


def test_getitem_variants_forward():
    a = np.arange(24.0).reshape(2, 3, 4)
    x = tg.tensor(a)
    for index in [
        0,
        -1,
        (1, 2),
        slice(None, None, -1),
        (Ellipsis, 1),
        (None, 0),
        (0, None, ..., 2),
        np.array([1, 0, 1]),
        (slice(None), [0, 2]),
        a > 10,
        (0, a[0] > 3),
    ]:
        np.testing.assert_array_equal(x[index].numpy(), a[index])
    np.testing.assert_array_equal(x[tg.tensor([1, 1])].numpy(), a[[1, 1]])
    np.testing.assert_array_equal(x[tg.tensor(a > 10)].numpy(), a[a > 10])


def test_matmul_free_function_and_operator_agree():
    a, b = np.random.default_rng(0).standard_normal((2, 3, 4)), np.ones((4, 5))
    np.testing.assert_allclose(
        (tg.tensor(a) @ tg.tensor(b)).numpy(), (a @ b).astype(np.float32), rtol=1e-6
    )
    np.testing.assert_allclose(tg.matmul(a, b).numpy(), a @ b)


# ---- in-place -----------------------------------------------------------------------------------
def test_inplace_ops_on_plain_tensors_write_the_buffer_and_bump_version():
    x = tg.tensor([1.0, 2.0])
    buf = x.numpy()
    v0 = x._version
    x += 1
    x *= 2
    x -= 1
    x /= 2
    x.add_(1).sub_(0.5).mul_(2).div_(2)
    assert x.tolist() == [2.0, 3.0] and x.numpy() is buf
    assert x._version == v0 + 8
    x.zero_()
    assert x.tolist() == [0.0, 0.0]
    x.fill_(7)
    x[0] = 1
    assert x.tolist() == [1.0, 7.0]
    x.copy_(tg.tensor([3.0, 4.0]))
    assert x.tolist() == [3.0, 4.0] and x.numpy() is buf


def test_inplace_on_leaf_requiring_grad_is_allowed_under_no_grad():
    w = tg.tensor([1.0, 2.0], requires_grad=True)
    with tg.no_grad():
        w -= 0.5 * tg.tensor([2.0, 2.0])
        w[0] = 10.0
    assert w.tolist() == [10.0, 1.0] and w.is_leaf and w.requires_grad


def test_inplace_on_non_leaf_is_recorded():
    x = tg.tensor([1.0, 2.0], requires_grad=True)
    y = x * 3
    y += x
    y *= 2
    assert y.grad_fn.name == "MulBackward"
    y.sum().backward()
    assert x.grad.tolist() == [8.0, 8.0]


def test_inplace_broadcasting_into_smaller_tensor_is_an_error():
    x = tg.tensor([1.0, 2.0], requires_grad=True)
    y = x * 1
    with pytest.raises((RuntimeError, ValueError), match="shape"):
        y += tg.ones(3, 2)
    z = tg.tensor([1.0, 2.0])
    with pytest.raises((RuntimeError, ValueError)):
        z += tg.ones(3, 2)


def test_grad_setter_and_zero():
    x = tg.tensor([1.0, 2.0], requires_grad=True)
    (x * x).sum().backward()
    x.grad.zero_()
    assert x.grad.tolist() == [0.0, 0.0]
    x.grad = tg.tensor([5.0, 5.0])
    (x * 1).sum().backward()
    assert x.grad.tolist() == [6.0, 6.0]
    x.grad = None
    assert x.grad is None
    with pytest.raises(RuntimeError, match="shape"):
        x.grad = tg.tensor([1.0])
    with pytest.raises(TypeError):
        x.grad = np.ones(2)


def test_requires_grad_on_non_leaf_cannot_change():
    x = tg.tensor([1.0], requires_grad=True)
    with pytest.raises(RuntimeError, match="leaf"):
        (x * 2).requires_grad = False


# ---- factories -----------------------------------------------------------------------------------
def test_factories():
    assert tg.zeros(2, 3).dtype == tg.float32 and tg.ones(2).tolist() == [1.0, 1.0]
    assert tg.full((2,), 7.0).tolist() == [7.0, 7.0] and tg.full((2,), 7.0).dtype == tg.float32
    assert tg.full((2,), 7).dtype == tg.int64
    assert tg.arange(3).dtype == tg.int64 and tg.arange(0.0, 1.0, 0.5).dtype == tg.float32
    assert tg.eye(2).tolist() == [[1.0, 0.0], [0.0, 1.0]]
    x = tg.randn(2, 3, dtype=tg.float64, requires_grad=True)
    assert x.shape == (2, 3) and x.dtype == tg.float64 and x.requires_grad
    assert tg.zeros_like(x).dtype == tg.float64 and tg.ones_like(x).shape == (2, 3)
    assert 0 <= tg.rand(100).numpy().min() and tg.rand(100).numpy().max() < 1
    tg.manual_seed(3)
    a = tg.randn(4)
    tg.manual_seed(3)
    assert tg.randn(4).tolist() == a.tolist()


def test_integers_and_python_floats_promote_to_float32_as_in_pytorch():
    assert (tg.arange(4) / 2).dtype == tg.float32
    assert (tg.arange(4) * 1.5).dtype == tg.float32
    assert (tg.tensor([1, 2]) / tg.tensor([2, 4])).dtype == tg.float32
    assert (tg.tensor([1.0], dtype=tg.float64) * 2).dtype == tg.float64  # asked for: kept
    assert (tg.tensor([1.0]) * np.array([2.0])).dtype == tg.float64  # float64 array: NumPy's rule
    assert tg.tensor([1.0]).astype(tg.float64).dtype == tg.float64


def test_inplace_on_a_view_writes_through_to_the_base_with_gradients():
    a = tg.tensor(np.arange(1.0, 7.0).reshape(2, 3), requires_grad=True)
    c = tg.tensor(2.0, requires_grad=True)
    b = a * 1.0
    row = b[1]
    row *= c  # b's second row doubles, on the tape
    b.T[0] += 10.0  # a transposed view: b's first column gains 10
    assert np.allclose(b.numpy(), [[11, 2, 3], [18, 10, 12]])
    assert np.allclose(row.numpy(), [18, 10, 12])  # the view sees its base
    (b * tg.tensor([[1.0, 2, 3], [4, 5, 6]])).sum().backward()
    assert np.allclose(a.grad.numpy(), [[1, 2, 3], [8, 10, 12]])  # d/da: weights, doubled in row 1
    assert np.isclose(c.grad.item(), 4 * 4 + 5 * 5 + 6 * 6)  # d/dc: sum of weights * a[1]


def test_inplace_on_views_that_cannot_write_through_is_refused_clearly():
    leaf = tg.tensor([1.0, 2.0, 3.0], requires_grad=True)
    with pytest.raises(RuntimeError, match="leaf tensor that requires grad"):
        leaf[0:2] += 1.0
    x = tg.tensor([1.0, 2.0], requires_grad=True) * 1.0
    with pytest.raises(RuntimeError, match="expanded"):
        x.expand(3, 2).__iadd__(1.0)


def test_a_view_changed_under_no_grad_is_caught_at_backward():
    w = tg.tensor([1.0, 2.0, 3.0], requires_grad=True)
    b = w * 1.0
    y = (b * b).sum()  # saves b
    with tg.no_grad():
        v = b[1:]
        v += 1.0  # writes into b's memory
    assert np.allclose(b.numpy(), [1.0, 3.0, 4.0])
    with pytest.raises(RuntimeError, match="modified by an in-place operation"):
        y.backward()


def test_chunk_and_split_edge_cases_as_pytorch():
    t = tg.ones(2, 5, requires_grad=True)
    assert [p.shape for p in t.chunk(2, dim=1)] == [(2, 3), (2, 2)]
    assert [p.shape for p in t.chunk(3, 1)] == [(2, 2), (2, 2), (2, 1)]
    assert [p.shape for p in t.chunk(10)] == [(1, 5), (1, 5)]
    for bad in (0, -1, 1.5, True):
        with pytest.raises(ValueError, match="chunk needs a positive number of chunks"):
            t.chunk(bad)
    assert [p.shape for p in tg.ones(0, 3).split(2)] == [(0, 3)]
    sum(p.sum() for p in t.chunk(2, dim=1)).backward()
    assert t.grad.tolist() == [[1.0] * 5] * 2


@pytest.mark.parametrize(
    "make,error,message",
    [
        (lambda: tg.arange(0, 5, 0), RuntimeError, "arange step must be nonzero"),
        (lambda: tg.eye(-2), RuntimeError, "n must be greater or equal to 0, got -2"),
        (lambda: tg.eye(2, 2.5), TypeError, "argument 'm' must be int, not 2.5"),
        (lambda: tg.linspace(0, 1, -3), RuntimeError, "number of steps must be non-negative"),
    ],
)
def test_factories_refuse_bad_sizes_clearly(make, error, message):
    with pytest.raises(error, match=message):  # (PyTorch's exception types)
        make()


def test_to_cpu_device_and_dtype_as_pytorch():
    t = tg.tensor([[1.0, 5.0], [3.0, 2.0]], requires_grad=True)
    assert (
        t.to("cpu") is t
        and t.cpu() is t
        and t.device == tg.device("cpu")
        and str(t.device) == "cpu"
    )
    assert t.to(tg.float64).dtype == np.float64 and t.to("float16").dtype == np.float16
    assert t.to(tg.ones(1, dtype=tg.float64)).dtype == np.float64
    assert t.to(device="cpu", dtype=tg.float64).dtype == np.float64
    for bad in (lambda: t.to("cuda"), lambda: t.cuda(), lambda: t.to(device="mps")):
        with pytest.raises(RuntimeError, match="tapegrad computes on the CPU"):
            bad()


def test_argmax_all_any_axes_checked():
    t = tg.tensor([[1.0, 5.0], [3.0, 2.0]])
    assert (
        t.argmax().item() == 1
        and t.argmax(1).tolist() == [1, 0]
        and t.argmin(dim=0).tolist() == [0, 1]
    )
    assert (t > 2).any(dim=0).tolist() == [True, True] and not (t > 2).all()
    with pytest.raises(IndexError, match="axis 5 is out of range"):
        t.argmax(axis=5)
    with pytest.raises(IndexError, match="axis 5 is out of range"):
        t.all(axis=5)
    with pytest.raises(TypeError, match="one axis"):
        t.argmax(axis=(0, 1))


def test_data_is_a_detached_tensor_sharing_memory():
    w = tg.tensor([1.0, 2.0], requires_grad=True)
    d = w.data
    assert isinstance(d, tg.Tensor) and not d.requires_grad and d.grad_fn is None
    assert np.shares_memory(d.numpy(), w.numpy())
    loss = (w * w).sum()
    loss.backward()
    w.data -= 0.5 * w.grad  # PyTorch's classic update: untracked, no version bump
    assert w.tolist() == [0.0, 0.0] and w._version == 0
    w.grad.data.mul_(-1)  # seed 003's idiom
    assert w.grad.tolist() == [-2.0, -4.0]
    w.data = tg.tensor([5.0, 6.0])  # the setter replaces the values without recording
    assert w.tolist() == [5.0, 6.0] and w.is_leaf and w.requires_grad
    assert w.data.asnumpy().tolist() == [5.0, 6.0]  # MindSpore's param.data.asnumpy()


def test_name_is_settable_and_given_at_creation():
    x = tg.tensor([1.0], name="x")
    assert x.name == "x"
    y = x * 2
    assert y.name is None
    y.name = "y"
    assert y.name == "y"
    with pytest.raises(TypeError, match="name is a str"):
        y.name = 3


@pytest.mark.parametrize(
    "module",
    ["elementwise", "transcendental", "comparison", "reduction", "shape", "indexing", "linalg"]
    + ["inplace", "pieces", "scatter", "tapegrad.combining", "tapegrad.creation"]
    + ["conversion", "tensor", "tapegrad.math"]
    + ["statistics", "order_statistics", "searching", "integration"],
)
def test_docstring_examples_of_the_methods_run(module):
    import doctest
    import importlib

    flags = doctest.NORMALIZE_WHITESPACE
    name = module if "." in module else f"tapegrad.tensor.{module}"  # (a method room)
    found = importlib.import_module(name)  # (not tg.tensor, a function)
    result = doctest.testmod(found, extraglobs={"tg": tg}, optionflags=flags)
    assert result.attempted > 0 and result.failed == 0
