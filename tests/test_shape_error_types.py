"""Shape errors against torch 2.13: where PyTorch raises RuntimeError for a tensor of the wrong
shape (operands that do not broadcast, a reshape to another size, matrices that do not
multiply, cat/stack of mismatched pieces...), tapegrad raises tg.ShapeError, which is both a
RuntimeError (PyTorch's kind, so code written for PyTorch catches it) and a ValueError
(tapegrad's documented kind for shape and length errors), with its own message naming the op.
"""

from __future__ import annotations

from typing import Any, Callable

import pytest

import tapegrad as tg

# name -> the same call in either library (L is tapegrad or torch)
CALLS: dict[str, Callable[[Any], Any]] = {
    "add": lambda L: L.ones(2) + L.ones(3),
    "mul-rank": lambda L: L.ones(2) * L.ones(2, 3),
    "add_": lambda L: L.ones(2).add_(L.ones(3)),
    "copy_": lambda L: L.ones(2, 3).copy_(L.ones(3, 2)),
    "matmul": lambda L: L.ones(2, 3) @ L.ones(2, 3),
    "mm": lambda L: L.ones(2, 3).mm(L.ones(2, 3)),
    "mm-rank": lambda L: L.mm(L.ones(3), L.ones(3, 2)),
    "bmm": lambda L: L.bmm(L.ones(2, 2, 3), L.ones(2, 2, 3)),
    "dot": lambda L: L.ones(3).dot(L.ones(2)),
    "mv": lambda L: L.ones(2, 3).mv(L.ones(2)),
    "outer": lambda L: L.outer(L.ones(2, 2), L.ones(2)),
    "linear": lambda L: L.nn.functional.linear(L.ones(2, 3), L.ones(4, 2)),
    "einsum": lambda L: L.einsum("ij,jk->ik", L.ones(2, 3), L.ones(2, 3)),
    "view": lambda L: L.ones(2).view(3),
    "view-inferred": lambda L: L.ones(2, 3).view(-1, 4),
    "reshape": lambda L: L.ones(2).reshape(3),
    "reshape-two-inferred": lambda L: L.ones(2, 3).reshape(-1, -1),
    "unflatten": lambda L: L.ones(6).unflatten(0, (4, 2)),
    "expand": lambda L: L.ones(2, 3).expand(4, 2),
    "permute": lambda L: L.ones(2, 3).permute(0, 0),
    "repeat": lambda L: L.ones(2, 3).repeat(2),
    "cat": lambda L: L.cat([L.ones(2, 3), L.ones(3, 2)]),
    "stack": lambda L: L.stack([L.ones(2), L.ones(3)]),
    "split": lambda L: L.ones(4).split([1, 2]),
    "narrow": lambda L: L.ones(2, 3).narrow(1, 2, 3),
    "where": lambda L: L.where(L.ones(2) > 0, L.ones(3), L.ones(2)),
    "masked_fill": lambda L: L.ones(2, 3).masked_fill(L.ones(3, 2) > 0, 0),
    "gather": lambda L: L.ones(2, 3).gather(0, L.ones(2, 3, 1).long()),
    "scatter": lambda L: L.ones(2, 3).scatter(0, L.zeros(3, 4).long(), 1.0),
    "index_add": lambda L: L.ones(3).index_add(0, L.tensor([0, 1]), L.ones(3)),
    "mse_loss": lambda L: L.nn.functional.mse_loss(L.ones(2, 3), L.ones(3, 2)),
    "trace": lambda L: L.trace(L.ones(2, 2, 2)),
    "flatten": lambda L: L.ones(2, 3).flatten(1, 0),
    "fliplr": lambda L: L.ones(3).fliplr(),
    "rot90": lambda L: L.ones(3).rot90(),
    "chunk": lambda L: L.ones(2, 3).chunk(0),
    "nonzero_static": lambda L: L.ones(2, 3).nonzero_static(size=-1),
    "diagonal": lambda L: L.ones(2, 3).diagonal(dim1=0, dim2=0),
    "narrow-0d": lambda L: L.tensor(1.0).narrow(0, 0, 1),
    "unfold": lambda L: L.ones(4).unfold(0, 2, 0),
    "repeat-negative": lambda L: L.ones(2, 3).repeat(-1, 1),
    "stack-empty": lambda L: L.stack([]),
    "cat-0d": lambda L: L.cat([L.tensor(1.0), L.tensor(2.0)]),
    "H": lambda L: L.ones(2, 3, 4).H,
    "sum_to_size": lambda L: L.ones(2, 3).sum_to_size(4),
    "split-0": lambda L: L.ones(4).split(0),
    "repeat_interleave": lambda L: L.ones(3).repeat_interleave(L.tensor([-1, 1, 1])),
    "tensor_split-2d": lambda L: L.ones(2, 3).tensor_split(L.ones(2, 2).long()),
    "unflatten-sizes": lambda L: L.ones(2, 3).unflatten(1, (2, 2)),
    "movedim": lambda L: L.ones(2, 3).movedim((0, 1), (0,)),
}


def _raised(call: Callable[[Any], Any], lib: Any) -> BaseException:
    with pytest.raises(Exception) as info:
        call(lib)
    return info.value


@pytest.mark.parametrize("name", list(CALLS))
def test_a_shape_error_is_the_runtime_error_pytorch_raises(name: str) -> None:
    torch = pytest.importorskip("torch")
    call = CALLS[name]
    assert type(_raised(call, torch)) is RuntimeError  # (what this test stands on)
    error = _raised(call, tg)
    assert isinstance(error, tg.ShapeError)
    assert isinstance(error, RuntimeError) and isinstance(error, ValueError)
    assert str(error)  # (a message of its own)


def test_shape_error_names_the_op_and_keeps_the_forwards_message() -> None:
    with pytest.raises(RuntimeError, match="^add: operands could not be broadcast"):
        tg.ones(2) + tg.ones(3)
    with pytest.raises(ValueError, match="^add_: operands could not be broadcast"):
        tg.ones(2).add_(tg.ones(3))


def test_a_recorded_op_raises_it_too() -> None:
    x = tg.ones(2, requires_grad=True)
    with pytest.raises(tg.ShapeError, match="mul"):
        x * tg.ones(3)
