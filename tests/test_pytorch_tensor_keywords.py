"""PyTorch's keywords and calling conventions on the Tensor side (issue 26): positional dim and
keepdim and `dtype=` on every reduction, softmax/log_softmax's dtype, argmax's keepdim, flip's
`dims=`, add/sub's `alpha=`, div's `rounding_mode=` (div_ too: an integer tensor never turns
floating in place), `Tensor.to(device, dtype, non_blocking, copy)` positionally, var/std's
correction=1 default with `unbiased=`/`correction=`/`ddof=`, and `format(t, spec)`.

Checked against torch in float64 where it is installed, and against closed forms otherwise.
"""

from __future__ import annotations

import numpy as np
import pytest

import tapegrad as tg
from tapegrad.autograd import gradcheck, gradgradcheck

RNG = np.random.default_rng(11)


def _torch():
    return pytest.importorskip("torch")


def _same(mine, theirs) -> None:
    theirs = theirs.detach().numpy()
    assert mine.numpy().dtype == theirs.dtype and mine.shape == theirs.shape
    rtol = 1e-13 if theirs.dtype != np.float32 else 1e-6  # (float32: a last bit may differ)
    np.testing.assert_allclose(mine.numpy(), theirs, rtol=rtol, atol=0)


# ---- reductions: dim, keepdim (positionally too) and dtype ------------------------------------
REDUCTIONS = [
    ("sum", (1, True), {}),
    ("sum", ((0, 1),), {"dtype": "float32"}),
    ("mean", (0, True), {}),
    ("mean", (), {"dim": 1, "dtype": "float32"}),
    ("prod", (1, True), {}),
    ("prod", (0,), {"dtype": "float32"}),
    ("logsumexp", (1, True), {}),
    ("amax", ((0, 1), True), {}),
    ("amin", (1,), {"keepdim": True}),
    ("argmax", (1, True), {}),
    ("argmin", (), {"dim": 0, "keepdim": True}),
    ("argmax", (), {"keepdim": True}),
    ("all", (1, True), {}),
    ("any", ((0, 1),), {}),
    ("softmax", (0, "float32"), {}),
    ("log_softmax", (1,), {"dtype": "float32"}),
]


@pytest.mark.parametrize("name, args, kwargs", REDUCTIONS)
def test_reductions_take_pytorchs_arguments(name, args, kwargs) -> None:
    torch = _torch()
    values = RNG.uniform(0.5, 2.0, (3, 4))
    tg_args = tuple(getattr(tg, a) if isinstance(a, str) else a for a in args)
    t_args = tuple(getattr(torch, a) if isinstance(a, str) else a for a in args)
    tg_kw = {k: getattr(tg, v) if k == "dtype" else v for k, v in kwargs.items()}
    t_kw = {k: getattr(torch, v) if k == "dtype" else v for k, v in kwargs.items()}
    mine, theirs = tg.tensor(values), torch.tensor(values)
    _same(getattr(mine, name)(*tg_args, **tg_kw), getattr(theirs, name)(*t_args, **t_kw))
    _same(getattr(tg, name)(mine, *tg_args, **tg_kw), getattr(torch, name)(theirs, *t_args, **t_kw))


def test_numpys_keywords_still_work() -> None:
    x = tg.tensor([[1.0, 2.0], [3.0, 5.0]])
    assert x.sum(axis=1, keepdims=True).shape == (2, 1)
    assert x.mean(axis=0).tolist() == [2.0, 3.5]
    assert x.argmax(axis=1).tolist() == [1, 1] and x.all(axis=0, keepdims=True).shape == (1, 2)
    assert x.sum(1, keepdims=True).shape == (2, 1)  # (makemore's P.sum(1, keepdims=True))
    with pytest.raises(TypeError, match="both dim and axis"):
        x.sum(0, axis=1)


def test_reductions_of_integers_and_bools_as_pytorch() -> None:
    torch = _torch()
    for values in (np.array([[1, 2], [3, 4]], dtype=np.int32), np.array([[True, False]] * 2)):
        for name in ("sum", "prod"):
            _same(getattr(tg.tensor(values), name)(), getattr(torch.tensor(values), name)())
        _same(
            tg.tensor(values).mean(dtype=tg.float64), torch.tensor(values).mean(dtype=torch.float64)
        )
    bools = np.array([[True, False], [True, True]])
    for name, dtype in [("prod", "bool"), ("sum", "bool"), ("sum", "int8"), ("prod", "int64")]:
        for values in (bools, np.array([[2.5, 2.0], [200.0, 100.0]]).astype(np.uint8), bools * 2.5):
            got = getattr(tg.tensor(values), name)(
                1, dtype=getattr(tg, dtype + "_" * (dtype == "bool"))
            )
            expected = getattr(torch.tensor(values), name)(1, dtype=getattr(torch, dtype))
            assert got.tolist() == expected.tolist() and got.numpy().dtype == expected.numpy().dtype
    with pytest.raises(TypeError, match="dtype="):
        tg.tensor([1, 2]).mean()
    with pytest.raises(TypeError, match="floating-point"):
        tg.tensor([1, 2]).softmax(0)
    assert tg.tensor([1, 2], dtype=tg.uint8).all().dtype == np.uint8  # (as torch.all)


def test_softmax_dtype_keeps_the_gradient() -> None:
    x = tg.tensor(RNG.standard_normal((2, 3)), dtype=tg.float32, requires_grad=True)
    y = x.softmax(1, dtype=tg.float64)
    assert y.dtype == np.float64
    (y * tg.tensor(RNG.standard_normal((2, 3)))).sum().backward()
    assert x.grad.dtype == np.float32 and np.abs(x.grad.numpy()).sum() > 0


# ---- flip's dims=, add/sub's alpha= ------------------------------------------------------------
def test_flip_takes_dims_positionally_or_by_keyword() -> None:
    x = tg.tensor(np.arange(6.0).reshape(2, 3))
    expected = np.arange(6.0).reshape(2, 3)[::-1, ::-1]
    for got in (x.flip(0, 1), x.flip((0, 1)), x.flip(dims=(0, 1)), tg.flip(x, dims=[0, 1])):
        np.testing.assert_array_equal(got.numpy(), expected)
    assert x.flip(dims=1).tolist() == [[2.0, 1.0, 0.0], [5.0, 4.0, 3.0]]
    same = x.flip(dims=())  # (no dims: a copy, as PyTorch's)
    assert same is not x and same.tolist() == x.tolist() and x.flip([]).tolist() == x.tolist()
    with pytest.raises(TypeError, match="needs the dims"):
        x.flip()
    with pytest.raises(TypeError, match="twice"):
        x.flip(0, dims=(1,))


def test_alpha_as_pytorch_including_its_checks() -> None:
    torch = _torch()
    x = tg.tensor(RNG.standard_normal(3), requires_grad=True)
    y = tg.tensor(RNG.standard_normal(3), requires_grad=True)
    assert gradcheck(lambda a, b: tg.add(a, b, alpha=-2.5), (x, y))
    assert gradgradcheck(lambda a, b: a.sub(b * a, alpha=3), (x, y))
    _same(
        tg.tensor([1, 2]).add(tg.tensor([1, 1]), alpha=2),
        torch.tensor([1, 2]).add(torch.tensor([1, 1]), alpha=2),
    )
    with pytest.raises(TypeError, match="alpha must not be a floating-point"):
        tg.tensor([1, 2]).add(1, alpha=1.5)
    z = tg.tensor([1.0, 2.0])
    assert z.add_(tg.tensor([1.0, 1.0]), alpha=2) is z and z.tolist() == [3.0, 4.0]


# ---- div's rounding_mode -----------------------------------------------------------------------
@pytest.mark.parametrize("mode", [None, "trunc", "floor"])
def test_div_rounding_modes_equal_pytorch(mode) -> None:
    torch = _torch()
    a = np.array([7.0, -7.0, 5.0, -5.0, 0.5, 1.0, -1.0, 0.0])
    b = np.array([2.0, 2.0, -3.0, 0.1, 0.1, 0.0, 0.0, 0.0])
    with np.errstate(all="ignore"):
        _same(
            tg.tensor(a).div(tg.tensor(b), rounding_mode=mode),
            torch.tensor(a).div(torch.tensor(b), rounding_mode=mode),
        )
    ints, int_div = np.array([7, -7, 5, -5, 0]), np.array([2, 2, -3, 3, 4])
    if mode is not None:  # integers stay integers, exactly (no float quotient in between)
        got = tg.div(tg.tensor(ints), tg.tensor(int_div), rounding_mode=mode)
        expected = torch.div(torch.tensor(ints), torch.tensor(int_div), rounding_mode=mode)
        _same(got, expected)
        big = tg.tensor([2**62 + 1]).div(3, rounding_mode=mode)
        assert big.tolist() == [(2**62 + 1) // 3]
        x = tg.tensor(ints)
        same = x
        x.div_(tg.tensor(int_div), rounding_mode=mode)
        assert x is same and x.tolist() == expected.tolist()
    x = tg.tensor(RNG.uniform(1, 3, 4), requires_grad=True)
    y = x.div(0.7, rounding_mode=mode)
    y.sum().backward()
    expected_grad = np.full(4, 1 / 0.7) if mode is None else np.zeros(4)  # (piecewise constant)
    np.testing.assert_allclose(x.grad.numpy(), expected_grad)


def test_div_in_place_never_turns_an_integer_tensor_floating() -> None:
    x = tg.tensor([6, 7])
    for call in (lambda: x.div_(2), lambda: x.__itruediv__(2), lambda: x.true_divide_(2)):
        with pytest.raises(RuntimeError, match="cannot hold"):
            call()
    with pytest.raises(RuntimeError, match="cannot hold"):
        x += 1.5
    assert x.tolist() == [6, 7] and x.dtype == np.int64
    with pytest.raises(ValueError, match="rounding_mode"):
        tg.tensor([1.0]).div(2.0, rounding_mode="round")
    with pytest.raises(TypeError, match="bool"):
        tg.tensor([True]).div(tg.tensor([True]), rounding_mode="floor")


# ---- Tensor.to as PyTorch reads its arguments --------------------------------------------------
def test_to_reads_device_dtype_non_blocking_copy_positionally() -> None:
    x = tg.tensor([1.0, 2.0], requires_grad=True)
    y = x.to("cpu", tg.float64, False, True)
    assert y.dtype == np.float64 and y.grad_fn is not None
    same = x.to(tg.float32, False, False)
    assert same is x and x.to("cpu") is x and x.to(None) is x
    copied = x.to(tg.float32, False, True)
    assert copied is not x and copied.grad_fn is not None and copied.tolist() == [1.0, 2.0]
    assert x.to(copy=True) is not x
    assert x.to(tg.tensor([1]), False, False).dtype == np.int64
    assert x.to(device="cpu", dtype=tg.float64, non_blocking=True).dtype == np.float64
    with pytest.raises(TypeError, match=r"to\(\) takes"):
        x.to(tg.float64, tg.float32)
    with pytest.raises(RuntimeError, match="CPU"):
        x.to("cuda", tg.float64)


# ---- var and std: PyTorch's correction=1 by default ---------------------------------------------
def test_var_and_std_default_to_pytorchs_unbiased_estimate() -> None:
    x = tg.tensor([[1.0, 2.0, 4.0], [0.0, 3.0, 5.0]])
    assert abs(x.std().item() - 1.8708287) < 1e-6  # issue 26's numbers: 1.8708, not 1.7078
    torch = _torch()
    values = RNG.standard_normal((3, 4))
    mine, theirs = tg.tensor(values), torch.tensor(values)
    calls = [
        ((), {}),
        ((1,), {}),
        ((1, True), {}),
        ((1, False), {}),
        ((1, True, True), {}),
        ((False,), {}),
        ((True,), {}),
        (((0, 1),), {"correction": 2}),
        ((), {"dim": 0, "correction": 0, "keepdim": True}),
        ((), {"dim": 1, "unbiased": False}),
    ]
    for name in ("var", "std"):
        for args, kwargs in calls:
            _same(getattr(mine, name)(*args, **kwargs), getattr(theirs, name)(*args, **kwargs))
            _same(
                getattr(tg, name)(mine, *args, **kwargs),
                getattr(torch, name)(theirs, *args, **kwargs),
            )
    np.testing.assert_allclose(mine.var(axis=1, ddof=0).numpy(), values.var(1))  # NumPy's ddof
    np.testing.assert_allclose(mine.std(axis=0, ddof=1).numpy(), values.std(0, ddof=1))
    with pytest.raises(TypeError, match="one of unbiased, correction and ddof"):
        mine.var(unbiased=True, correction=1)
    with pytest.raises(TypeError, match="floating-point"):
        tg.tensor([1, 2]).var()
    leaf = tg.tensor(values, requires_grad=True)
    assert gradcheck(lambda t: t.var(1), (leaf,)) and gradgradcheck(lambda t: t.std(0), (leaf,))


def test_var_and_std_spelled_as_numpy_and_mindspore_keep_their_ddof_0() -> None:
    values = RNG.standard_normal((3, 4))
    t = tg.tensor(values)
    for name in ("var", "std"):
        want = getattr(np, name)
        np.testing.assert_allclose(getattr(t, name)(axis=0).numpy(), want(values, axis=0))
        np.testing.assert_allclose(
            getattr(tg, name)(t, axis=1, keepdims=True).numpy(), want(values, 1, keepdims=True)
        )
        np.testing.assert_allclose(
            getattr(t, name)(keepdims=True).numpy(), want(values, None, keepdims=True)
        )
        np.testing.assert_allclose(
            getattr(t, name)(axis=0, ddof=1).numpy(), want(values, 0, ddof=1)
        )
        np.testing.assert_allclose(  # (a PyTorch keyword given with them wins)
            getattr(t, name)(axis=0, correction=1).numpy(), want(values, 0, ddof=1)
        )
        assert not np.allclose(getattr(t, name)(dim=0).numpy(), want(values, 0))  # dim=: n - 1


def test_np_var_on_a_tensor_keeps_numpys_meaning() -> None:
    values = RNG.standard_normal((3, 4))
    t = tg.tensor(values, requires_grad=True)
    np.testing.assert_allclose(np.var(t).numpy(), np.var(values))
    np.testing.assert_allclose(np.std(t, axis=1, ddof=1).numpy(), np.std(values, axis=1, ddof=1))


# ---- format ------------------------------------------------------------------------------------
def test_format_of_a_0d_tensor_formats_its_number_as_pytorch() -> None:
    torch = _torch()
    cases = [
        (2.4543561935424805, "float64"),
        (2.4543561935424805, "float32"),
        (2.5, "float16"),
        (3, "int64"),
        (True, "bool"),
    ]
    for value, dtype in cases:
        mine, theirs = (
            tg.tensor(value, dtype=getattr(tg, dtype if dtype != "bool" else "bool_")),
            torch.tensor(value, dtype=getattr(torch, dtype)),
        )
        for spec in ("", ".4f", ">12", "e"):
            try:
                expected = format(theirs, spec)
            except (ValueError, TypeError) as error:
                with pytest.raises(type(error)):
                    format(mine, spec)
                continue
            assert format(mine, spec) == expected
    loss = tg.tensor(2.4543561935424805, dtype=tg.float64, requires_grad=True) * 1
    assert f"{loss}" == "2.4543561935424805" and f"{loss:.4f}" == "2.4544"
    one = tg.tensor([2.5])  # (not 0-d: printed whole, and no number format, as PyTorch)
    assert f"{one}" == str(torch.tensor([2.5])) == "tensor([2.5000])"
    with pytest.raises(TypeError, match="only a 0-d tensor"):
        f"{one:.2f}"
    assert "mean %+.2f" % tg.tensor(0.25) == "mean +0.25"
