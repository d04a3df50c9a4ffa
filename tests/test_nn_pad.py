"""F.pad: PyTorch's pad-tuple order (last dimension first), the four modes against np.pad,
cropping with negative sizes, gradients, errors, PyTorch parity."""

from __future__ import annotations

import numpy as np
import pytest

import tapegrad as tg
from tapegrad.autograd import gradcheck

F = tg.nn.functional
NUMPY_MODE = {"constant": "constant", "reflect": "reflect", "replicate": "edge", "circular": "wrap"}


def _np_widths(pad: tuple, ndim: int) -> list:
    """PyTorch's (left_last, right_last, left_before_last, ...) as np.pad's per-axis pairs."""
    pairs = [(pad[i], pad[i + 1]) for i in range(0, len(pad), 2)]
    return [(0, 0)] * (ndim - len(pairs)) + pairs[::-1]


@pytest.mark.parametrize("mode", list(NUMPY_MODE))
@pytest.mark.parametrize("pad", [(1, 2), (2, 0, 1, 1), (0, 3, 2, 1, 1, 0)])
def test_modes_match_numpy_pad(mode, pad):
    x = np.random.default_rng(0).standard_normal((2, 3, 4))
    got = F.pad(tg.tensor(x), pad, mode=mode)
    kwargs = {"constant_values": 0.0} if mode == "constant" else {}
    want = np.pad(x, _np_widths(pad, x.ndim), mode=NUMPY_MODE[mode], **kwargs)
    assert np.array_equal(got.numpy(), want)


def test_value_dtype_cropping_and_gradients():
    x = tg.tensor([[1.0, 2.0, 3.0]])
    assert F.pad(x, (1, 2), value=-1.0).tolist() == [[-1.0, 1.0, 2.0, 3.0, -1.0, -1.0]]
    assert F.pad(x, (-1, 1)).tolist() == [[2.0, 3.0, 0.0]]  # negative sizes crop
    assert F.pad(x, (0, 0, 1, 0)).tolist() == [[0.0, 0.0, 0.0], [1.0, 2.0, 3.0]]
    row = tg.tensor([[0.0, 1.0, 2.0, 3.0, 4.0]])
    # cropping comes first and the padding then wraps around what is left (as PyTorch)
    assert F.pad(row, (2, -1), mode="circular").tolist() == [[2.0, 3.0, 0.0, 1.0, 2.0, 3.0]]
    assert F.pad(row, (-1, 2), mode="reflect").tolist() == [[1.0, 2.0, 3.0, 4.0, 3.0, 2.0]]
    # replicate reads the nearest entry of the uncropped input, even when a crop takes it all
    assert F.pad(row, (-5, 2), mode="replicate").tolist() == [[4.0, 4.0]]
    assert F.pad(row, (3, -6), mode="replicate").tolist() == [[0.0, 0.0]]
    assert F.pad(row, (1, -2), mode="replicate").tolist() == [[0.0, 0.0, 1.0, 2.0]]
    ints = F.pad(tg.tensor([[1, 2]]), (1, 1), value=2.5)
    assert ints.dtype == np.int64 and ints.tolist() == [[2, 1, 2, 2]]  # the value is cast
    assert F.pad(tg.tensor([[1.0]], dtype=tg.float16), (1, 1)).dtype == np.float16
    t = tg.tensor(np.random.default_rng(1).standard_normal((2, 3)), requires_grad=True)
    for mode in NUMPY_MODE:
        assert gradcheck(lambda v, m=mode: F.pad(v, (2, 1, 1, 0), mode=m), (t,))
    assert gradcheck(lambda v: F.pad(v, (-1, 2), value=3.0), (t,))
    assert gradcheck(lambda v: F.pad(v, (-3, 2, 1, -2), mode="replicate"), (t,))
    out = F.pad(t, (2, 2), mode="reflect")
    out.backward(tg.ones(2, 7, dtype=tg.float64))
    # [a, b, c] reflected by 2 is [c, b, a, b, c, b, a]: each copy adds its gradient
    assert t.grad.numpy()[0].tolist() == [2.0, 3.0, 2.0]


def test_errors():
    x = tg.ones(2, 3)
    with pytest.raises(ValueError, match="divisible by 2"):
        F.pad(x, (1,))
    with pytest.raises(ValueError, match="padding length 6 and input of dimension 2"):
        F.pad(x, (1, 1, 1, 1, 1, 1))
    with pytest.raises(ValueError, match=r"reflect padding \(3, 3\) must be less than the size 3"):
        F.pad(x, (3, 3), mode="reflect")
    with pytest.raises(ValueError, match=r"circular padding \(4, 3\) must be at most the size 3"):
        F.pad(x, (4, 3), mode="circular")
    with pytest.raises(ValueError, match="unrecognised padding mode 'mirror'"):
        F.pad(x, (1, 1), mode="mirror")
    with pytest.raises(ValueError, match="doesn't take in value argument"):
        F.pad(x, (1, 1), mode="reflect", value=1.0)
    with pytest.raises(ValueError, match="negative size along dimension 1"):
        F.pad(x, (-2, -2))
    with pytest.raises(RuntimeError, match="must not be empty"):  # (PyTorch's RuntimeError)
        F.pad(tg.ones(2, 0), (1, 1), mode="replicate")


def test_matches_pytorch_values_and_gradients():
    torch = pytest.importorskip("torch", reason="PyTorch parity checks need torch")
    rng = np.random.default_rng(2)
    x = rng.standard_normal((2, 3, 4, 5))
    for mode in NUMPY_MODE:
        for pad in [(1, 1, 2, 2), (2, 1, 0, 3), (-1, 2, 1, -2), (2, -1, 1, 2, 0, 1)]:
            kwargs = {"value": 1.5} if mode == "constant" else {}
            tx, gx = torch.tensor(x, requires_grad=True), tg.tensor(x, requires_grad=True)
            ty = torch.nn.functional.pad(tx, pad, mode=mode, **kwargs)
            gy = F.pad(gx, pad, mode=mode, **kwargs)
            g = rng.standard_normal(tuple(ty.shape))
            ty.backward(torch.tensor(g))
            gy.backward(tg.tensor(g))
            assert np.array_equal(gy.numpy(), ty.detach().numpy()), (mode, pad)
            assert np.allclose(gx.grad.numpy(), tx.grad.numpy()), (mode, pad)
