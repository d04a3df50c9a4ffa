"""DLPack: tensors shared with NumPy, PyTorch and JAX without a copy (tg.from_dlpack,
Tensor.__dlpack__ and __dlpack_device__), and the exports tapegrad refuses."""

from __future__ import annotations

import numpy as np
import pytest

import tapegrad as tg

RNG = np.random.default_rng(0)


SAMPLES = {
    "float32": lambda: tg.tensor([1.0, 2.0, 3.0]),
    "float64 2-d": lambda: tg.tensor(RNG.standard_normal((2, 3)), dtype=tg.float64),
    "0-d": lambda: tg.tensor(2.5),
    "bool": lambda: tg.tensor([True, False]),
    "int64": lambda: tg.arange(4),
    "transposed": lambda: tg.arange(6.0).reshape(2, 3).T,
    "strided slice": lambda: tg.arange(8.0)[::2],
    "broadcast (read-only)": lambda: tg.ones(3).expand(2, 3),
}


@pytest.mark.parametrize("name", list(SAMPLES))
def test_numpy_dlpack_round_trip_shares_memory(name: str) -> None:
    t = SAMPLES[name]()
    assert t.__dlpack_device__() == (1, 0)  # kDLCPU, device 0
    a = np.from_dlpack(t)
    assert np.shares_memory(a, t.numpy()) and a.dtype == t.dtype and a.shape == t.shape
    back = tg.from_dlpack(a)
    assert isinstance(back, tg.Tensor) and np.shares_memory(back.numpy(), t.numpy())
    np.testing.assert_array_equal(back.numpy(), t.numpy())


def test_from_dlpack_numpy_arrays_zero_copy() -> None:
    arr = np.arange(3.0)
    t = tg.from_dlpack(arr)
    assert t.dtype == np.float64 and not t.requires_grad  # the array's dtype, kept (no copy)
    t.numpy()[0] = 7.0
    arr[2] = 9.0
    assert arr[0] == 7.0 and t.numpy()[2] == 9.0
    frozen = np.arange(3.0)
    frozen.flags.writeable = False
    r = tg.from_dlpack(frozen)
    assert np.shares_memory(r.numpy(), frozen) and not r.numpy().flags.writeable
    assert not np.shares_memory(tg.from_dlpack(arr, copy=True).numpy(), arr)


def test_dlpack_refusals() -> None:
    w = tg.tensor([1.0, 2.0], requires_grad=True)
    with pytest.raises(BufferError, match=r"requires grad.*detach\(\)"):
        np.from_dlpack(w)
    assert np.shares_memory(np.from_dlpack(w.detach()), w.numpy())
    with pytest.raises(BufferError, match=r"negative strides.*clone\(\)"):
        np.from_dlpack(tg.arange(4.0)[::-1])
    with pytest.raises(TypeError, match="supports DLPack.*tg.tensor"):
        tg.from_dlpack([1.0, 2.0])
    with pytest.raises(TypeError, match="dtype complex64"):
        tg.from_dlpack(np.ones(2, np.complex64))


def test_torch_dlpack_round_trips() -> None:
    torch = pytest.importorskip("torch", reason="PyTorch is not installed")
    t = tg.tensor([1.0, 2.0, 3.0])
    tt = torch.from_dlpack(t)
    tt[0] = 9.0  # the same memory
    assert t.numpy()[0] == 9.0 and tt.dtype == torch.float32
    src = torch.arange(6.0).reshape(2, 3).T
    back = tg.from_dlpack(src)
    src[0, 1] = -1.0
    assert back.shape == (3, 2) and back.numpy()[0, 1] == -1.0
    assert tg.from_dlpack(torch.utils.dlpack.to_dlpack(torch.arange(3))).numpy().tolist() == [
        0,
        1,
        2,
    ]
    for sample in ("0-d", "bool", "transposed", "int64"):
        x = SAMPLES[sample]()
        np.testing.assert_array_equal(torch.from_dlpack(x).numpy(), x.numpy())
        assert np.shares_memory(torch.from_dlpack(x).numpy(), x.numpy())
    # Exporting a tensor that requires grad: PyTorch refuses with a BufferError; so does tapegrad.
    with pytest.raises(BufferError):
        np.from_dlpack(torch.ones(2, requires_grad=True))
    with pytest.raises(BufferError, match="detach"):
        torch.from_dlpack(tg.ones(2, requires_grad=True))


def test_jax_dlpack_round_trips() -> None:
    jnp = pytest.importorskip("jax.numpy", reason="JAX is not installed (its DLPack is optional)")
    t = tg.tensor([1.0, 2.0, 3.0])
    np.testing.assert_array_equal(np.asarray(jnp.from_dlpack(t)), t.numpy())
    back = tg.from_dlpack(jnp.arange(4.0))
    assert back.numpy().tolist() == [0.0, 1.0, 2.0, 3.0]
