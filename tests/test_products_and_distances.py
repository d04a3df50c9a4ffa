"""PyTorch's other products and distances (tensor/linalg.py, math.py's cdist): mv, inner, vdot,
kron, cross, the addmm family (addmm, addmv, addbmm, baddbmm and their in-place forms), dist,
cdist, and the comparisons isclose and equal.

Each is a composition of recorded primitives: gradients are checked by finite differences to
second order, and values, dtypes and gradients against torch (float64) where it is installed.
"""

from __future__ import annotations

import numpy as np
import pytest

import tapegrad as tg
from tapegrad.autograd import gradcheck, gradgradcheck

RNG = np.random.default_rng(5)


def _torch():
    return pytest.importorskip("torch")


def _against_torch(name: str, arrays: list, method: bool = False, **kwargs) -> None:
    """tg.<name> and torch.<name> (or the methods) on the same float64 inputs: the same values,
    and the same gradients of the output's sum for every input."""
    torch = _torch()
    results = []
    for lib in (tg, torch):
        xs = [lib.tensor(a, requires_grad=True) for a in arrays]
        out = (
            getattr(xs[0], name)(*xs[1:], **kwargs) if method else getattr(lib, name)(*xs, **kwargs)
        )
        out.sum().backward()
        results.append((out.detach().numpy(), [x.grad.numpy() for x in xs]))
    (mine, my_grads), (theirs, their_grads) = results
    assert mine.shape == theirs.shape and mine.dtype == theirs.dtype
    np.testing.assert_allclose(mine, theirs, rtol=1e-12, atol=1e-12)
    for a, b in zip(my_grads, their_grads):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12)


def _normal(*shape):
    return RNG.standard_normal(shape)


CASES = [
    ("mv", [_normal(3, 4), _normal(4)], {}),
    ("inner", [_normal(2, 3, 4), _normal(5, 4)], {}),
    ("inner", [_normal(4), _normal(4)], {}),
    ("inner", [_normal(3), np.array(2.5)], {}),
    ("vdot", [_normal(5), _normal(5)], {}),
    ("kron", [_normal(2, 3), _normal(4, 2)], {}),
    ("kron", [_normal(3), _normal(2, 2)], {}),
    ("cross", [_normal(4, 3), _normal(4, 3)], {"dim": 1}),
    ("cross", [_normal(3, 5), _normal(3, 1)], {"dim": 0}),
    ("addmm", [_normal(3, 2), _normal(3, 4), _normal(4, 2)], {"beta": 0.5, "alpha": 2.0}),
    ("addmm", [_normal(2), _normal(3, 4), _normal(4, 2)], {}),
    ("addmv", [_normal(3), _normal(3, 4), _normal(4)], {"alpha": -1.5}),
    ("addbmm", [_normal(3, 2), _normal(5, 3, 4), _normal(5, 4, 2)], {"beta": 2.0}),
    ("baddbmm", [_normal(5, 3, 2), _normal(5, 3, 4), _normal(5, 4, 2)], {"beta": 0.3}),
    ("dist", [_normal(3, 4), _normal(4)], {}),
    ("dist", [_normal(6), _normal(6)], {"p": 1}),
    ("dist", [_normal(6), _normal(6)], {"p": float("inf")}),
    ("cdist", [_normal(2, 5, 3), _normal(2, 6, 3)], {}),
    ("cdist", [_normal(5, 3), _normal(6, 3)], {"p": 1.0}),
    ("cdist", [_normal(30, 3), _normal(28, 3)], {}),  # (over 25 rows: the matrix product path)
    ("cdist", [_normal(4, 2), _normal(5, 2)], {"compute_mode": "use_mm_for_euclid_dist"}),
]


@pytest.mark.parametrize("name,arrays,kwargs", CASES, ids=[c[0] for c in CASES])
def test_values_and_gradients_against_torch(name: str, arrays: list, kwargs: dict) -> None:
    _against_torch(name, arrays, **kwargs)
    if name != "cdist":  # (torch.cdist has no method form)
        _against_torch(name, arrays, method=True, **kwargs)


@pytest.mark.parametrize("name,arrays,kwargs", CASES[:16], ids=[c[0] for c in CASES[:16]])
def test_gradients_to_second_order(name: str, arrays: list, kwargs: dict) -> None:
    inputs = tuple(tg.tensor(a, requires_grad=True) for a in arrays)

    def f(*xs):
        return getattr(tg, name)(*xs, **kwargs)

    assert gradcheck(f, inputs)
    if name != "dist" or kwargs.get("p", 2) == 2:  # (|x| and max: piecewise linear)
        assert gradgradcheck(f, inputs)


def test_cdist_gradient_at_distance_zero_is_zero_on_both_paths() -> None:
    torch = _torch()
    points = _normal(30, 3)
    for mode in ("use_mm_for_euclid_dist", "donot_use_mm_for_euclid_dist"):
        x = tg.tensor(points, requires_grad=True)
        d = tg.cdist(x, x.detach(), compute_mode=mode)
        d.sum().backward()
        assert np.isfinite(x.grad.numpy()).all()
        t = torch.tensor(points, requires_grad=True)
        torch.cdist(t, t.detach(), compute_mode=mode).sum().backward()
        np.testing.assert_allclose(x.grad.numpy(), t.grad.numpy(), atol=1e-6)


def test_beta_zero_ignores_the_input_and_integer_tensors_truncate_the_factors() -> None:
    torch = _torch()
    nan_input = tg.full((2, 2), float("nan"))
    out = nan_input.addmm(tg.eye(2), tg.ones(2, 2), beta=0)
    assert out.tolist() == [[1.0, 1.0], [1.0, 1.0]]
    i, m, v = [10, 20], [[1, 2], [3, 4]], [5, 7]
    for beta, alpha in [(0.2, 0.6), (1.7, 2.5), (1, 1)]:
        mine = tg.addmv(tg.tensor(i), tg.tensor(m), tg.tensor(v), beta=beta, alpha=alpha)
        theirs = torch.addmv(
            torch.tensor(i), torch.tensor(m), torch.tensor(v), beta=beta, alpha=alpha
        )
        assert mine.dtype == np.int64 and mine.tolist() == theirs.tolist()


def test_in_place_forms_write_the_tensor() -> None:
    x = tg.zeros(2, 2)
    assert x.addmm_(tg.eye(2), tg.ones(2, 2), alpha=2) is x and x.tolist() == [[2.0] * 2] * 2
    y = tg.ones(2)
    assert y.addmv_(tg.eye(2), tg.tensor([1.0, 2.0])) is y and y.tolist() == [2.0, 3.0]
    z = tg.zeros(1, 1)
    assert z.addbmm_(tg.ones(2, 1, 2), tg.ones(2, 2, 1)) is z and z.tolist() == [[4.0]]
    w = tg.zeros(2, 1, 1)
    assert w.baddbmm_(tg.ones(2, 1, 3), tg.ones(2, 3, 1)) is w and w.flatten().tolist() == [3.0] * 2
    leaf = tg.zeros(2, 2, requires_grad=True)
    with pytest.raises(RuntimeError, match="leaf"):
        leaf.addmm_(tg.eye(2), tg.eye(2))


def test_cross_without_dim_takes_the_first_axis_of_size_3() -> None:
    torch = _torch()
    a, b = _normal(3, 3, 2), _normal(3, 3, 2)
    mine = tg.tensor(a).cross(tg.tensor(b))
    np.testing.assert_allclose(mine.numpy(), torch.cross(torch.tensor(a), torch.tensor(b), dim=0))
    assert tg.cross(tg.tensor([1.0, 0, 0]), tg.tensor([0.0, 1, 0])).tolist() == [0.0, 0.0, 1.0]


@pytest.mark.parametrize(
    "call,message",
    [
        (lambda: tg.mv(tg.ones(2, 3), tg.ones(2)), "size mismatch"),
        (lambda: tg.mv(tg.ones(3), tg.ones(3)), "matrix"),
        (lambda: tg.inner(tg.ones(2, 3), tg.ones(2)), "last dimensions must match"),
        (lambda: tg.vdot(tg.ones(2, 2), tg.ones(2, 2)), "1D tensors expected"),
        (lambda: tg.cross(tg.ones(2, 4), tg.ones(2, 4)), "no dimension of size 3"),
        (lambda: tg.cross(tg.ones(3, 4), tg.ones(3, 4), dim=1), "does not have size 3"),
        (lambda: tg.addmm(tg.ones(2), tg.ones(2), tg.ones(2, 2)), "matrix"),
        (lambda: tg.baddbmm(tg.ones(1), tg.ones(2, 2), tg.ones(2, 2)), "3D"),
        (lambda: tg.cdist(tg.ones(3), tg.ones(3)), "at least 2-D"),
        (lambda: tg.cdist(tg.ones(3, 2), tg.ones(3, 2), p=-1), "non-negative"),
        (lambda: tg.cdist(tg.ones(3, 2), tg.ones(3, 2), compute_mode="fast"), "compute_mode"),
    ],
)
def test_bad_shapes_and_arguments_are_clear_errors(call, message: str) -> None:
    with pytest.raises((ValueError, TypeError), match=message):
        call()


def test_isclose_and_equal_as_torch() -> None:
    torch = _torch()
    a = [1.0, float("nan"), 2.0, float("inf")]
    b = [1.0 + 1e-9, float("nan"), 2.1, float("inf")]
    for equal_nan in (False, True):
        mine = tg.isclose(tg.tensor(a), tg.tensor(b), equal_nan=equal_nan)
        theirs = torch.isclose(torch.tensor(a), torch.tensor(b), equal_nan=equal_nan)
        assert mine.dtype == np.bool_ and mine.tolist() == theirs.tolist()
    assert tg.tensor([1.0, 2.0]).isclose(tg.tensor([1.05, 2.0]), rtol=0.1).tolist() == [True, True]
    assert tg.equal(tg.tensor([1.0, 2.0]), tg.tensor([1.0, 2.0])) is True
    assert tg.tensor([1.0, 2.0]).equal(tg.tensor([[1.0, 2.0]])) is False  # (shapes differ)
    assert tg.tensor([float("nan")]).equal(tg.tensor([float("nan")])) is False
