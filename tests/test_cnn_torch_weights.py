"""Weights move between tapegrad and PyTorch as plain arrays, for the CNN of tutorial 09 (Conv2d,
BatchNorm2d with its running statistics and num_batches_tracked, Linear): the same keys, shapes and
dtypes; a NumPy forward written from PyTorch's documented layouts gives tapegrad's eval output; with
torch installed, a torch model's arrays load into tapegrad and back with the same outputs."""

from __future__ import annotations

import io
from typing import Any

import numpy as np
import pytest

import tapegrad as tg


def make_cnn(nn: Any) -> Any:
    """Tutorial 09's network, from tapegrad's or PyTorch's `nn` (the same names and signatures)."""
    return nn.Sequential(
        nn.Conv2d(1, 16, kernel_size=3, padding=1),
        nn.BatchNorm2d(16),
        nn.ReLU(),
        nn.MaxPool2d(2),
        nn.Conv2d(16, 32, kernel_size=3, padding=1),
        nn.BatchNorm2d(32),
        nn.ReLU(),
        nn.MaxPool2d(2),
        nn.Flatten(),
        nn.Linear(128, 64),
        nn.ReLU(),
        nn.Linear(64, 10),
    )


def bn(i: int, c: int) -> list:
    return [
        (f"{i}.weight", (c,), "float32"),
        (f"{i}.bias", (c,), "float32"),
        (f"{i}.running_mean", (c,), "float32"),
        (f"{i}.running_var", (c,), "float32"),
        (f"{i}.num_batches_tracked", (), "int64"),
    ]


# PyTorch's state_dict of this network: key order, shapes and dtypes (from its documentation:
# Conv2d weight (out, in, kH, kW), Linear weight (out, in), BatchNorm's buffers after its affine
# parameters, num_batches_tracked a 0-d int64)
TORCH_LAYOUT = (
    [("0.weight", (16, 1, 3, 3), "float32"), ("0.bias", (16,), "float32")]
    + bn(1, 16)
    + [("4.weight", (32, 16, 3, 3), "float32"), ("4.bias", (32,), "float32")]
    + bn(5, 32)
    + [("9.weight", (64, 128), "float32"), ("9.bias", (64,), "float32")]
    + [("11.weight", (10, 64), "float32"), ("11.bias", (10,), "float32")]
)


def random_state(seed: int) -> dict:
    """Plain arrays in PyTorch's layout, with running statistics far from their initial 0 and 1."""
    rng = np.random.default_rng(seed)
    state = {}
    for key, shape, dtype in TORCH_LAYOUT:
        if key.endswith("num_batches_tracked"):
            state[key] = np.array(rng.integers(1, 100), np.int64)
        elif key.endswith("running_var"):
            state[key] = rng.uniform(0.5, 2.0, shape).astype(dtype)
        else:
            state[key] = (0.3 * rng.standard_normal(shape)).astype(dtype)
    return state


def numpy_forward(state: dict, x: np.ndarray) -> np.ndarray:
    """The network in eval mode written with NumPy from PyTorch's definitions, in float64."""
    s = {k: v.astype(np.float64) for k, v in state.items()}

    def conv3x3_same(x, w, b):  # cross-correlation, zero padding 1, stride 1
        xp = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)))
        h, wd = x.shape[2:]
        out = np.zeros((x.shape[0], w.shape[0], h, wd))
        for i in range(3):
            for j in range(3):
                out += np.einsum("nchw,oc->nohw", xp[:, :, i : i + h, j : j + wd], w[:, :, i, j])
        return out + b[None, :, None, None]

    def batch_norm_eval(x, i):
        mean, var = s[f"{i}.running_mean"], s[f"{i}.running_var"]
        scale = s[f"{i}.weight"] / np.sqrt(var + 1e-5)
        return (x - mean[:, None, None]) * scale[:, None, None] + s[f"{i}.bias"][:, None, None]

    def max_pool2(x):
        n, c, h, w = x.shape
        return x.reshape(n, c, h // 2, 2, w // 2, 2).max(axis=(3, 5))

    h = max_pool2(np.maximum(batch_norm_eval(conv3x3_same(x, s["0.weight"], s["0.bias"]), 1), 0))
    h = max_pool2(np.maximum(batch_norm_eval(conv3x3_same(h, s["4.weight"], s["4.bias"]), 5), 0))
    h = h.reshape(len(h), -1)  # flattened as (C, H, W)
    h = np.maximum(h @ s["9.weight"].T + s["9.bias"], 0)
    return h @ s["11.weight"].T + s["11.bias"]


def images(seed: int, n: int = 5) -> np.ndarray:
    return np.random.default_rng(seed).uniform(0, 1, (n, 1, 8, 8)).astype(np.float32)


def eval_output(model: Any, x: np.ndarray) -> np.ndarray:
    model.eval()
    with tg.no_grad():
        return model(tg.tensor(x)).numpy()


# ---- always on: no torch needed -----------------------------------------------------------------


def test_state_dict_has_pytorchs_keys_shapes_and_dtypes() -> None:
    state = make_cnn(tg.nn).state_dict()
    got = [(k, tuple(v.shape), str(v.dtype)) for k, v in state.items()]
    assert got == TORCH_LAYOUT


def test_arrays_in_pytorchs_layout_give_pytorchs_eval_output() -> None:
    state = random_state(0)
    model = make_cnn(tg.nn)
    model.load_state_dict(state)
    x = images(1)
    np.testing.assert_allclose(eval_output(model, x), numpy_forward(state, x), rtol=1e-4, atol=1e-5)
    for key, value in model.state_dict().items():  # every array kept, including the buffers
        np.testing.assert_array_equal(value.numpy(), state[key])
        assert value.dtype == state[key].dtype
    assert model[1].num_batches_tracked.item() == state["1.num_batches_tracked"]


def test_plain_npz_round_trip_without_pickle() -> None:
    tg.manual_seed(0)
    model = make_cnn(tg.nn)
    model(tg.tensor(images(2, 16)))  # train mode: moves the running statistics, counts a batch
    buffer = io.BytesIO()
    np.savez(buffer, **{k: v.numpy() for k, v in model.state_dict().items()})
    buffer.seek(0)
    with np.load(buffer, allow_pickle=False) as archive:
        arrays = {k: archive[k] for k in archive.files}
    fresh = make_cnn(tg.nn)
    fresh.load_state_dict(arrays)
    assert fresh[5].num_batches_tracked.item() == 1
    x = images(3)
    np.testing.assert_array_equal(eval_output(fresh, x), eval_output(model, x))


# ---- with PyTorch ------------------------------------------------------------------------------


def test_torch_weights_load_into_tapegrad_and_back() -> None:
    torch = pytest.importorskip("torch", reason="moving weights to and from PyTorch needs torch")
    torch.manual_seed(0)
    theirs = make_cnn(torch.nn)
    with torch.no_grad():
        for seed in range(3):  # train mode: running statistics move, num_batches_tracked = 3
            theirs(torch.from_numpy(images(10 + seed, 16)))
    arrays = {k: v.numpy() for k, v in theirs.state_dict().items()}
    assert arrays["1.num_batches_tracked"] == 3

    ours = make_cnn(tg.nn)
    ours.load_state_dict(arrays)
    x = images(4, 7)
    theirs.eval()
    with torch.no_grad():
        expected = theirs(torch.from_numpy(x)).numpy()
    np.testing.assert_allclose(eval_output(ours, x), expected, rtol=1e-4, atol=1e-5)

    # back: tapegrad trains on, then its arrays load into a fresh PyTorch model
    ours.train()
    optimizer = tg.optim.Adam(ours.parameters(), lr=0.01)
    labels = np.arange(16) % 10
    for seed in range(2):
        optimizer.zero_grad()
        loss = tg.nn.CrossEntropyLoss()(ours(tg.tensor(images(20 + seed, 16))), tg.tensor(labels))
        loss.backward()
        optimizer.step()
    back = make_cnn(torch.nn)
    back.load_state_dict({k: torch.from_numpy(v.numpy()) for k, v in ours.state_dict().items()})
    assert (
        back[5].num_batches_tracked.item() == 5 and back[5].num_batches_tracked.dtype == torch.int64
    )
    back.eval()
    with torch.no_grad():
        expected = back(torch.from_numpy(x)).numpy()
    np.testing.assert_allclose(eval_output(ours, x), expected, rtol=1e-4, atol=1e-5)


def test_same_train_mode_step_as_torch() -> None:
    torch = pytest.importorskip("torch", reason="PyTorch's values need torch")
    state = random_state(5)
    ours, theirs = make_cnn(tg.nn), make_cnn(torch.nn)
    ours.load_state_dict(state)
    theirs.load_state_dict({k: torch.from_numpy(v) for k, v in state.items()})
    x, labels = images(6, 12), np.arange(12) % 10
    loss = tg.nn.CrossEntropyLoss()(ours(tg.tensor(x)), tg.tensor(labels))
    loss.backward()
    expected = torch.nn.CrossEntropyLoss()(theirs(torch.from_numpy(x)), torch.from_numpy(labels))
    expected.backward()
    assert loss.item() == pytest.approx(expected.item(), rel=1e-5)
    grads = dict(theirs.named_parameters())
    for name, p in ours.named_parameters():
        np.testing.assert_allclose(
            p.grad.numpy(), grads[name].grad.numpy(), rtol=1e-3, atol=1e-6, err_msg=name
        )
    for name, buffer in theirs.named_buffers():  # momentum 0.1, unbiased running variance
        np.testing.assert_allclose(
            dict(ours.named_buffers())[name].numpy(), buffer.numpy(), rtol=1e-5, err_msg=name
        )
