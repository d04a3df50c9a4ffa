"""MaxUnpool1d/2d and F.max_unpool1d/2d: values back at their indices, output_size's rule,
gradients (gradcheck to second order), PyTorch's values, gradients, reprs and errors."""

from __future__ import annotations

import numpy as np
import pytest

import tapegrad as tg
import tapegrad.nn.functional as F
from tapegrad import nn

RNG = np.random.default_rng(9)


def distinct(*shape: int) -> tg.Tensor:
    n = int(np.prod(shape))
    return tg.tensor(RNG.permutation(n).reshape(shape) * 0.1, requires_grad=True)


def test_values_go_back_to_their_indices() -> None:
    x = tg.tensor([[[[1.0, 2.0], [4.0, 3.0]]]])
    pooled, idx = F.max_pool2d(x, 2, return_indices=True)
    assert F.max_unpool2d(pooled, idx, 2).tolist() == [[[[0.0, 0.0], [4.0, 0.0]]]]
    assert F.max_unpool2d(pooled, idx, 2, output_size=(3, 3)).shape == (1, 1, 3, 3)
    assert F.max_unpool2d(pooled, idx, 2, output_size=(1, 1, 3, 3)).shape == (1, 1, 3, 3)
    line, at = F.max_pool1d(tg.tensor([[1.0, 3.0, 2.0, 0.0]]), 2, return_indices=True)
    assert F.max_unpool1d(line, at, 2).tolist() == [[0.0, 3.0, 2.0, 0.0]]  # (unbatched)


def test_gradients_to_second_order() -> None:
    x = distinct(2, 3, 6, 5)
    _, idx = F.max_pool2d(x, 2, return_indices=True)  # (no index twice: one write each)
    values = distinct(*idx.shape)

    def fn(v: tg.Tensor) -> tg.Tensor:
        return F.max_unpool2d(v, idx, 2, output_size=(6, 5)) ** 2

    assert tg.autograd.gradcheck(fn, (values,))
    assert tg.autograd.gradgradcheck(fn, (values,))


@pytest.mark.parametrize(
    "dims, shape, kw",
    [
        (2, (2, 3, 6, 8), dict(kernel_size=2)),
        (2, (2, 3, 7, 7), dict(kernel_size=3, stride=2, padding=1)),
        (2, (3, 6, 5), dict(kernel_size=(2, 3), stride=(2, 1))),
        (1, (2, 3, 9), dict(kernel_size=3, stride=2, padding=1)),
        (1, (3, 8), dict(kernel_size=2)),
    ],
)
def test_against_torch(dims: int, shape: tuple, kw: dict) -> None:
    torch = pytest.importorskip("torch")
    data = RNG.standard_normal(shape)
    pool = getattr(torch.nn.functional, f"max_pool{dims}d")
    pooled, idx = pool(torch.tensor(data), return_indices=True, **kw)
    v = pooled.numpy()
    ours_v, theirs_v = tg.tensor(v, requires_grad=True), torch.tensor(v, requires_grad=True)
    ours = getattr(nn, f"MaxUnpool{dims}d")(**kw)
    theirs = getattr(torch.nn, f"MaxUnpool{dims}d")(**kw)
    assert repr(ours) == repr(theirs)
    got, want = ours(ours_v, tg.tensor(idx.numpy())), theirs(theirs_v, idx)
    np.testing.assert_array_equal(got.numpy(), want.detach().numpy())
    g = RNG.standard_normal(got.shape)
    (got * tg.tensor(g)).sum().backward()
    (want * torch.tensor(g)).sum().backward()
    np.testing.assert_array_equal(ours_v.grad.numpy(), theirs_v.grad.numpy())


def test_errors() -> None:
    pooled, idx = F.max_pool2d(tg.ones(1, 2, 4, 4), 2, return_indices=True)
    with pytest.raises(ValueError, match=r"dim 0 must be between 2 and 6"):
        F.max_unpool2d(pooled, idx, 2, output_size=(7, 7))
    with pytest.raises(IndexError, match="invalid max index"):
        F.max_unpool2d(pooled, idx * 10, 2)
    with pytest.raises(TypeError, match="int64"):
        F.max_unpool2d(pooled, idx.to(tg.float32), 2)
    with pytest.raises(ValueError, match="same shape"):
        F.max_unpool2d(pooled, idx[..., :1], 2)


@pytest.mark.parametrize("dims", [1, 2])
def test_errors_name_the_spelling_used(dims: int) -> None:
    # (one implementation serves both ranks and the layers: each error names its caller)
    shape = (1, 2) + (4,) * dims
    pooled, idx = getattr(F, f"max_pool{dims}d")(tg.ones(*shape), 2, return_indices=True)
    functional, layer = getattr(F, f"max_unpool{dims}d"), getattr(nn, f"MaxUnpool{dims}d")(2)
    with pytest.raises(ValueError, match=f"max_unpool{dims}d: output_size must have"):
        functional(pooled, idx, 2, output_size=(4,) * (dims + 1))
    with pytest.raises(IndexError, match=f"max_unpool{dims}d: Found an invalid max index"):
        layer(pooled, idx * 10)
    with pytest.raises(TypeError, match=f"max_unpool{dims}d: the input must be a tapegrad"):
        functional(pooled.numpy(), idx, 2)


@pytest.mark.parametrize("module", ["functional_unpool", "pooling"])
def test_docstring_examples_run(module: str) -> None:
    import doctest
    import importlib

    found = importlib.import_module(f"tapegrad.nn.{module}")
    flags = doctest.NORMALIZE_WHITESPACE
    result = doctest.testmod(found, extraglobs={"tg": tg, "F": tg.nn.functional}, optionflags=flags)
    assert result.attempted > 0 and result.failed == 0
