"""Lazy layers (LazyLinear, LazyConv*, LazyConvTranspose*, LazyBatchNorm*, LazyInstanceNorm*) and
UninitializedParameter / UninitializedBuffer, as PyTorch's: the input size read off the first
input, the same tensor objects materialised, the module becoming its ordinary class; shapes,
state_dict keys and errors against torch; gradients of a materialised layer against finite
differences."""

from __future__ import annotations

import copy
import inspect

import numpy as np
import pytest

import tapegrad as tg
from tapegrad import nn

# (lazy class, constructor arguments, input shape)
LAYERS = [
    ("LazyLinear", (4,), {}, (2, 3)),
    ("LazyLinear", (5,), {"bias": False}, (2, 7, 3)),
    ("LazyConv1d", (6, 3), {}, (4, 8)),  # (unbatched: channels on axis 0)
    ("LazyConv1d", (6, 3), {"groups": 2, "padding": 1}, (2, 4, 8)),
    ("LazyConv2d", (6, 3), {"stride": 2}, (2, 3, 8, 8)),
    ("LazyConv3d", (2, 2), {"bias": False}, (1, 3, 4, 4, 4)),
    ("LazyConvTranspose1d", (4, 3), {"output_padding": 1, "stride": 2}, (2, 5, 6)),
    ("LazyConvTranspose2d", (6, 3), {"groups": 2}, (1, 4, 5, 5)),
    ("LazyConvTranspose3d", (2, 2), {}, (1, 3, 3, 3, 3)),
    ("LazyBatchNorm1d", (), {}, (4, 3)),
    ("LazyBatchNorm2d", (), {"affine": False}, (2, 3, 4, 4)),
    ("LazyBatchNorm3d", (), {"momentum": None}, (2, 3, 2, 2, 2)),
    ("LazyInstanceNorm1d", (), {}, (2, 3, 5)),
    ("LazyInstanceNorm2d", (), {"track_running_stats": False}, (2, 3, 4, 4)),
    ("LazyInstanceNorm3d", (), {"affine": False}, (2, 3, 2, 2, 2)),
]
IDS = [f"{name}-{i}" for i, (name, *_) in enumerate(LAYERS)]


@pytest.mark.parametrize(("name", "args", "kwargs", "shape"), LAYERS, ids=IDS)
def test_lazy_layers_become_their_class_as_torchs(name, args, kwargs, shape):
    torch = pytest.importorskip("torch")
    ours, theirs = getattr(nn, name)(*args, **kwargs), getattr(torch.nn, name)(*args, **kwargs)
    assert repr(ours).startswith(name) and ours.has_uninitialized_params()
    before = [(n, type(p).__name__) for n, p in ours.named_parameters()]
    assert before == [(n, type(p).__name__) for n, p in theirs.named_parameters()]
    held = list(ours.parameters())
    x = np.random.default_rng(0).standard_normal(shape)
    out = ours(tg.tensor(x, dtype=tg.float32))
    ref = theirs(torch.tensor(x, dtype=torch.float32))
    assert type(ours).__name__ == type(theirs).__name__ == theirs.__class__.__name__
    assert not any(isinstance(p, nn.UninitializedParameter) for p in ours.parameters())
    assert out.shape == tuple(ref.shape)
    assert [(n, p.shape) for n, p in ours.named_parameters()] == [
        (n, tuple(p.shape)) for n, p in theirs.named_parameters()
    ]
    assert all(a is b for a, b in zip(held, ours.parameters()))  # (the same objects)
    assert {k: v.shape for k, v in ours.state_dict().items()} == {
        k: tuple(v.shape) for k, v in theirs.state_dict().items()
    }
    for attribute in ("in_features", "in_channels", "num_features"):
        if hasattr(theirs, attribute):
            assert getattr(ours, attribute) == getattr(theirs, attribute)


@pytest.mark.parametrize("name", sorted({n for n, *_ in LAYERS}))
def test_signatures_are_torchs(name):
    torch = pytest.importorskip("torch")
    mine = [(p.name, p.default) for p in inspect.signature(getattr(nn, name)).parameters.values()]
    yours = inspect.signature(getattr(torch.nn, name)).parameters.values()
    assert mine == [(p.name, p.default) for p in yours]
    assert getattr(nn, name).cls_to_become is getattr(nn, name.removeprefix("Lazy"))


def test_a_materialised_layer_has_the_values_of_its_class_and_trains():
    tg.manual_seed(0)
    lazy = nn.LazyLinear(3, dtype=tg.float64)
    opt = tg.optim.SGD(lazy.parameters(), lr=0.1)  # (built before the first call, as allowed)
    x = tg.tensor(np.random.default_rng(1).standard_normal((5, 4)))
    loss = (lazy(x) ** 2).sum()
    assert lazy.weight.dtype == tg.float64 and lazy.weight.requires_grad
    bound = 1 / np.sqrt(4)  # (Linear's init at the real in_features)
    assert np.all(np.abs(lazy.weight.numpy()) <= bound)
    loss.backward()
    before = lazy.weight.numpy().copy()
    opt.step()
    assert not np.array_equal(before, lazy.weight.numpy())
    assert tg.autograd.gradcheck(lambda x: lazy(x), [x.detach().requires_grad_()])


def test_cast_before_the_first_call_and_deepcopy():
    m = nn.LazyConv2d(4, 3).double()
    twin = copy.deepcopy(m)
    m(tg.ones(1, 2, 5, 5, dtype=tg.float64))
    assert m.weight.dtype == tg.float64 and m.weight.shape == (4, 2, 3, 3)
    assert twin.has_uninitialized_params() and type(twin).__name__ == "LazyConv2d"
    twin(tg.ones(1, 3, 5, 5, dtype=tg.float64))
    assert twin.weight.shape == (4, 3, 3, 3)


def test_state_dict_of_a_lazy_layer_and_loading_into_one():
    trained = nn.Linear(3, 2)
    lazy = nn.LazyLinear(2)
    saved = lazy.state_dict()
    assert isinstance(saved["weight"], nn.UninitializedParameter)  # (as PyTorch's)
    lazy.load_state_dict(trained.state_dict())  # (materialised with the saved shapes)
    np.testing.assert_array_equal(lazy.weight.numpy(), trained.weight.numpy())
    out = lazy(tg.ones(1, 3))
    np.testing.assert_allclose(out.numpy(), trained(tg.ones(1, 3)).numpy())
    assert type(lazy).__name__ == "Linear" and lazy.in_features == 3


def test_uninitialized_tensors_refuse_use_as_torchs():
    p = nn.UninitializedParameter()
    assert isinstance(p, nn.Parameter) and p.requires_grad and p.dtype == tg.float32
    assert repr(p) == "<UninitializedParameter>"
    with pytest.raises(RuntimeError, match="Can't access the shape of an uninitialized"):
        p.shape
    with pytest.raises(ValueError, match="Attempted to use an uninitialized parameter"):
        p + 1
    with pytest.raises(ValueError, match="Attempted to use an uninitialized parameter"):
        p.numpy()
    p.materialize((2, 3), dtype=tg.float64)
    assert type(p) is nn.Parameter and p.shape == (2, 3) and p.dtype == tg.float64
    b = nn.UninitializedBuffer()
    assert not b.requires_grad
    b.materialize(4)
    assert type(b) is tg.Tensor and b.shape == (4,)
    opt_params = nn.LazyLinear(2).parameters()
    opt = tg.optim.SGD(opt_params, lr=0.1)
    with pytest.raises(ValueError, match="uninitialized parameter"):
        opt.step([tg.ones(1), tg.ones(1)])


def test_lazy_errors_are_torchs():
    with pytest.raises(RuntimeError, match=r"Expected 3D \(unbatched\) or 4D \(batched\) input"):
        nn.LazyConv2d(4, 3)(tg.ones(2, 3))
    with pytest.raises(ValueError, match="in_channels must be divisible by groups"):
        nn.LazyConv2d(4, 3, groups=2)(tg.ones(1, 3, 5, 5))
    with pytest.raises(ValueError, match="out_channels must be divisible by groups|groups"):
        nn.LazyConv2d(3, 3, groups=2)  # (the constructor's own checks run at once)
    with pytest.raises(TypeError, match="reads its input size off its first input"):
        nn.LazyLinear(2)([1.0, 2.0])
    m = nn.LazyLinear(2)
    with pytest.raises(ValueError, match="uninitialized parameter"):
        m.weight.sum()
