"""tg.nn.utils.stateless.functional_call: PyTorch's deprecated spelling of func.functional_call
(a FutureWarning), the same results and gradients."""

from __future__ import annotations

import numpy as np
import pytest

import tapegrad as tg
from helpers import rand


def test_functional_call_warns_and_delegates():
    lin = tg.nn.Linear(2, 1, dtype=tg.float64)
    weight = tg.tensor(rand(1, 2), requires_grad=True)
    x = tg.tensor(rand(3, 2, seed=1))
    with pytest.warns(FutureWarning, match="Please use `torch.func.functional_call` instead"):
        out = tg.nn.utils.stateless.functional_call(lin, {"weight": weight}, (x,))
    want = tg.func.functional_call(lin, {"weight": weight}, (x,))
    np.testing.assert_allclose(out.numpy(), want.numpy())
    np.testing.assert_allclose(out.numpy(), x.numpy() @ weight.numpy().T + lin.bias.numpy())
    out.sum().backward()
    np.testing.assert_allclose(weight.grad.numpy(), x.numpy().sum(0, keepdims=True))
    assert lin.weight.grad is None  # (the module's own weight took no part)


def test_functional_call_keywords_and_strict():
    lin = tg.nn.Linear(2, 1)
    with pytest.warns(FutureWarning):
        with pytest.raises(RuntimeError, match="bias"):
            tg.nn.utils.stateless.functional_call(
                lin, {"weight": tg.ones(1, 2)}, tg.ones(2), strict=True
            )
    with pytest.warns(FutureWarning):
        out = tg.nn.utils.stateless.functional_call(
            lin, {"weight": tg.ones(1, 2), "bias": tg.zeros(1)}, kwargs={"input": tg.ones(2)}
        )
    assert out.tolist() == [2.0]


def test_matches_torch():
    torch = pytest.importorskip("torch")
    theirs = torch.nn.Linear(2, 3).double()
    ours = tg.nn.Linear(2, 3, dtype=tg.float64)
    w, x = rand(3, 2), rand(4, 2, seed=1)
    with pytest.warns(FutureWarning):
        a = tg.nn.utils.stateless.functional_call(
            ours, {"weight": tg.tensor(w), "bias": tg.zeros(3)}, (tg.tensor(x),)
        )
    with pytest.warns(FutureWarning):
        b = torch.nn.utils.stateless.functional_call(
            theirs,
            {"weight": torch.tensor(w), "bias": torch.zeros(3, dtype=torch.float64)},
            (torch.tensor(x),),
        )
    np.testing.assert_allclose(a.numpy(), b.detach().numpy())
