"""tg.from_numpy, tg.randperm, tg.normal (PyTorch's overloads), the dtype aliases tg.float / double
/ long / int, and tg.autograd.Variable: checked against PyTorch's documented behaviour and, when
torch is installed, PyTorch itself.
"""

from __future__ import annotations

import numpy as np
import pytest

import tapegrad as tg


def test_from_numpy_shares_memory_and_keeps_the_dtype():
    a = np.arange(4.0)
    t = tg.from_numpy(a)
    assert t.dtype == np.float64 and t.shape == (4,)
    a[0] = 7.0
    assert t[0].item() == 7.0
    t.numpy()[1] = -1.0
    assert a[1] == -1.0
    assert tg.from_numpy(np.array([1, 2], np.int32)).dtype == np.int32
    x = tg.from_numpy(np.array([1.0, 2.0]))
    x.requires_grad_(True)
    (x * x).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [2.0, 4.0])


def test_from_numpy_errors():
    with pytest.raises(TypeError, match=r"expected np.ndarray \(got list\)"):
        tg.from_numpy([1.0, 2.0])
    with pytest.raises(TypeError, match="complex128"):
        tg.from_numpy(np.ones(2, np.complex128))


def test_randperm():
    p = tg.randperm(10)
    assert p.dtype == np.int64 and sorted(p.tolist()) == list(range(10))
    tg.manual_seed(3)
    first = tg.randperm(50).tolist()
    tg.manual_seed(3)
    assert tg.randperm(50).tolist() == first
    assert tg.randperm(0).shape == (0,)
    assert tg.randperm(4, dtype=tg.float32).dtype == np.float32
    with pytest.raises(RuntimeError, match="negative dimension -1"):  # (PyTorch's error)
        tg.randperm(-1)


def test_normal_overloads_shapes_and_dtypes():
    assert tg.normal(0.0, 1.0, (2, 3)).shape == (2, 3)
    assert tg.normal(0.0, 1.0, (2, 3)).dtype == np.float32
    assert tg.normal(0.0, 1.0, size=(2,), dtype=tg.float64).dtype == np.float64
    assert tg.normal(tg.zeros(2, 1), tg.ones(3)).shape == (2, 3)
    assert tg.normal(tg.zeros(4)).shape == (4,)
    assert tg.normal(0.0, tg.ones(2, 3)).shape == (2, 3)
    assert tg.normal(tg.zeros(2, dtype=tg.float64), 1.0).dtype == np.float64


def test_normal_statistics():
    tg.manual_seed(0)
    s = tg.normal(3.0, 2.0, (20000,)).numpy()
    assert abs(s.mean() - 3.0) < 0.05 and abs(s.std() - 2.0) < 0.05
    m = tg.tensor(np.array([-5.0, 5.0]))
    s = np.stack([tg.normal(m, 0.1).numpy() for _ in range(200)])
    np.testing.assert_allclose(s.mean(0), [-5.0, 5.0], atol=0.03)


def test_normal_errors():
    with pytest.raises(TypeError, match="needs a size"):
        tg.normal(0.0, 1.0)
    with pytest.raises(ValueError, match="std >= 0"):
        tg.normal(0.0, -1.0, (2,))
    with pytest.raises(ValueError, match="std >= 0"):
        tg.normal(tg.zeros(2), -tg.ones(2))
    with pytest.raises(TypeError, match="size= goes with float mean and std"):
        tg.normal(tg.zeros(2), 1.0, (2,))


def test_normal_gives_zero_gradients_as_pytorch():
    m = tg.zeros(3, requires_grad=True)
    s = tg.ones(3, requires_grad=True)
    out = tg.normal(m, s)
    assert out.grad_fn.name == "NormalBackward"
    out.sum().backward()
    assert not m.grad.numpy().any() and not s.grad.numpy().any()


def test_dtype_aliases():
    assert tg.float == tg.float32 and tg.double == tg.float64
    assert tg.long == tg.int64 and tg.int == tg.int32
    assert tg.zeros(2, dtype=tg.long).dtype == np.int64
    assert isinstance(1.5, float) and int("3") == 3  # the builtins are untouched outside tg


def test_variable_is_a_new_leaf_sharing_memory():
    base = tg.ones(2, 2)
    x = tg.autograd.Variable(base, requires_grad=True)
    assert isinstance(x, tg.Tensor) and x.is_leaf and x.requires_grad and not base.requires_grad
    base.numpy()[0, 0] = 5.0
    assert x[0, 0].item() == 5.0
    assert isinstance(x, tg.autograd.Variable) and isinstance(base, tg.autograd.Variable)
    y = tg.autograd.Variable(x * 2)
    assert y.is_leaf and not y.requires_grad
    z = x * 2  # the seed's program: y.backward(z) with a non-leaf gradient
    (z - 1).backward(z)
    np.testing.assert_allclose(x.grad.numpy(), 2 * z.detach().numpy())
    with pytest.raises(TypeError, match="has to be a tensor, but got list"):
        tg.autograd.Variable([1.0, 2.0])
    with pytest.raises((TypeError, RuntimeError), match="floating"):
        tg.autograd.Variable(tg.tensor([1, 2]), requires_grad=True)


def test_against_torch():
    torch = pytest.importorskip("torch", reason="compares with PyTorch")
    assert torch.float == torch.float32 and str(tg.float) == "float32"
    a = np.arange(3.0)
    assert tg.from_numpy(a).dtype == np.dtype(str(torch.from_numpy(a).dtype).split(".")[1])
    v = torch.autograd.Variable(torch.ones(2), requires_grad=True)
    w = tg.autograd.Variable(tg.ones(2), requires_grad=True)
    assert (v.is_leaf, v.requires_grad) == (w.is_leaf, w.requires_grad)
    assert (
        torch.normal(torch.zeros(2, 1), torch.ones(3)).shape
        == tg.normal(tg.zeros(2, 1), tg.ones(3)).shape
    )
