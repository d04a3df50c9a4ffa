"""torch.linalg's error types for bad inputs, function by function against torch 2.13: a 1-D A, a
non-square A (where square ones are needed), an integer A and a float16 A raise RuntimeError (or
NotImplementedError, where PyTorch's kernel is missing for the dtype) as PyTorch's do, from
tapegrad's shared checks (tensor/linear_systems.floating, square; decompositions.matrices).
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np
import pytest

import tapegrad as tg


def _rhs(a: Any) -> Any:
    return a[..., :1] if a.ndim >= 2 else a


FUNCTIONS: dict[str, Callable[[Any, Any], Any]] = {
    "linalg.inv": lambda L, a: L.linalg.inv(a),
    "linalg.inv_ex": lambda L, a: L.linalg.inv_ex(a),
    "linalg.det": lambda L, a: L.linalg.det(a),
    "det": lambda L, a: L.det(a),
    "linalg.slogdet": lambda L, a: L.linalg.slogdet(a),
    "logdet": lambda L, a: L.logdet(a),
    "inverse": lambda L, a: L.inverse(a),
    "linalg.solve": lambda L, a: L.linalg.solve(a, _rhs(a)),
    "linalg.solve_ex": lambda L, a: L.linalg.solve_ex(a, _rhs(a)),
    "linalg.solve_triangular": lambda L, a: L.linalg.solve_triangular(a, _rhs(a), upper=True),
    "linalg.cholesky": lambda L, a: L.linalg.cholesky(a),
    "linalg.cholesky_ex": lambda L, a: L.linalg.cholesky_ex(a),
    "cholesky": lambda L, a: L.cholesky(a),
    "cholesky_solve": lambda L, a: L.cholesky_solve(_rhs(a), a),
    "cholesky_inverse": lambda L, a: L.cholesky_inverse(a),
    "linalg.eigh": lambda L, a: L.linalg.eigh(a),
    "linalg.eigvalsh": lambda L, a: L.linalg.eigvalsh(a),
    "linalg.svd": lambda L, a: L.linalg.svd(a),
    "linalg.svdvals": lambda L, a: L.linalg.svdvals(a),
    "svd": lambda L, a: L.svd(a),
    "linalg.pinv": lambda L, a: L.linalg.pinv(a),
    "pinverse": lambda L, a: L.pinverse(a),
    "linalg.lstsq": lambda L, a: L.linalg.lstsq(a, a),
    "linalg.qr": lambda L, a: L.linalg.qr(a),
    "linalg.lu_factor": lambda L, a: L.linalg.lu_factor(a),
    "linalg.lu": lambda L, a: L.linalg.lu(a),
    "linalg.matrix_exp": lambda L, a: L.linalg.matrix_exp(a),
    "linalg.matrix_power": lambda L, a: L.linalg.matrix_power(a, 2),
    "linalg.tensorinv": lambda L, a: L.linalg.tensorinv(a, ind=1),
    "linalg.matrix_rank": lambda L, a: L.linalg.matrix_rank(a),
    "linalg.cond": lambda L, a: L.linalg.cond(a),
}

CASES = {"1-D": ((3,), "float64"), "3x4": ((3, 4), "float64"), "int64": ((3, 3), "int64")}
CASES["float16"] = ((3, 3), "float16")

# Where PyTorch computes and tapegrad refuses (NumPy's LAPACK takes float32/float64 only): a
# clear error, not PyTorch's answer
REFUSED = {("linalg.matrix_power", "int64"), ("linalg.matrix_power", "float16")}
REFUSED |= {("linalg.matrix_exp", "float16")}


def _input(lib: Any, shape: tuple, dtype: str) -> Any:
    a = np.arange(int(np.prod(shape)), dtype=np.float64).reshape(shape) + 1
    if len(shape) == 2 and shape[0] == shape[1]:
        a = a @ a.T + 5 * np.eye(shape[0])
    return lib.tensor(a.astype(dtype))


def _outcome(fn: Callable[[], Any]) -> type | None:
    try:
        fn()
    except Exception as error:  # noqa: BLE001  (the type is what is compared)
        return type(error)
    return None


@pytest.mark.parametrize("case", list(CASES))
@pytest.mark.parametrize("name", list(FUNCTIONS))
def test_error_type_as_torch(name: str, case: str) -> None:
    torch = pytest.importorskip("torch")
    shape, dtype = CASES[case]
    fn = FUNCTIONS[name]
    want = _outcome(lambda: fn(torch, _input(torch, shape, dtype)))
    got = _outcome(lambda: fn(tg, _input(tg, shape, dtype)))
    if (name, case) in REFUSED:
        assert want is None and got is RuntimeError
        with pytest.raises(RuntimeError, match="convert it first"):
            fn(tg, _input(tg, shape, dtype))
        return
    assert got is want, f"{name} on a {case} input: tapegrad {got}, PyTorch {want}"


def test_right_hand_side_and_option_errors_as_torch() -> None:
    torch = pytest.importorskip("torch")
    a = np.eye(3) * 2

    def both(fn: Callable[[Any], Any]) -> tuple[type | None, type | None]:
        return _outcome(lambda: fn(torch)), _outcome(lambda: fn(tg))

    calls = [
        lambda L: L.linalg.solve(L.tensor(a), L.tensor(np.ones((4, 2)))),
        lambda L: L.linalg.solve(L.tensor(a), L.tensor(np.ones((3, 2), np.float32))),
        lambda L: L.linalg.solve_ex(L.tensor(a), L.tensor(np.ones((4, 2)))),
        lambda L: L.linalg.solve_triangular(L.tensor(a), L.tensor(np.ones(3)), upper=True),
        lambda L: L.linalg.solve_triangular(L.tensor(a), L.tensor(np.ones((4, 2))), upper=True),
        lambda L: L.cholesky_solve(L.tensor(np.ones(3)), L.tensor(a)),
        lambda L: L.linalg.lstsq(L.tensor(a), L.tensor(np.ones((4, 2)))),
        lambda L: L.linalg.lstsq(L.tensor(a), L.tensor(np.ones((3, 2), np.float32))),
        lambda L: L.linalg.lstsq(L.tensor(a), L.tensor(a), driver="magic"),
        lambda L: L.linalg.eigh(L.tensor(a), UPLO="X"),
        lambda L: L.linalg.qr(L.tensor(a), mode="x"),
        lambda L: L.linalg.lu_solve(
            L.tensor(np.ones(3)), L.tensor(np.arange(1, 4, dtype=np.int32)), L.tensor(a)
        ),
    ]
    for call in calls:
        want, got = both(call)
        assert want is RuntimeError and got is want, (want, got)
