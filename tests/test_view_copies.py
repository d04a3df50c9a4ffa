"""PyTorch's *_copy functions (tapegrad/view_copies.py): the view's values in fresh memory (a
write to the copy leaves the input alone), tuples for unbind/split as torch gives, and gradients
flowing back as the view's, against torch."""

from __future__ import annotations

import numpy as np
import pytest

import tapegrad as tg
from helpers import rand

X = rand(2, 3, seed=3)
CALLS = {
    "alias_copy": (),
    "as_strided_copy": ((2, 2), (1, 2)),
    "diagonal_copy": (),
    "expand_copy": ((2, 2, 3),),
    "permute_copy": ((1, 0),),
    "select_copy": (1, -1),
    "slice_copy": (1, 0, None, 2),
    "split_copy": (1,),
    "split_with_sizes_copy": ([1, 2], 1),
    "squeeze_copy": (),
    "t_copy": (),
    "transpose_copy": (0, 1),
    "unbind_copy": (),
    "unfold_copy": (1, 2, 1),
    "unsqueeze_copy": (0,),
    "view_copy": ((3, 2),),
}


def _parts(out):
    return list(out) if isinstance(out, tuple) else [out]


@pytest.mark.parametrize("name", CALLS)
def test_copy_shares_no_memory_and_keeps_the_views_values(name):
    x = tg.tensor(X)
    view_name = {"alias_copy": None, "slice_copy": None}.get(name, name.removesuffix("_copy"))
    out = getattr(tg, name)(x, *CALLS[name])
    for part in _parts(out):
        assert not np.shares_memory(part.numpy(), x.numpy())
    if view_name is not None:
        view = getattr(x, view_name)(*CALLS[name])
        assert [p.tolist() for p in _parts(out)] == [p.tolist() for p in _parts(view)]
    assert isinstance(out, tuple) == (
        name in ("unbind_copy", "split_copy", "split_with_sizes_copy")
    )


@pytest.mark.parametrize("name", CALLS)
def test_copy_matches_pytorch_in_values_and_gradients(name):
    torch = pytest.importorskip("torch")
    ours, theirs = tg.tensor(X, requires_grad=True), torch.tensor(X, requires_grad=True)
    got, want = getattr(tg, name)(ours, *CALLS[name]), getattr(torch, name)(theirs, *CALLS[name])
    assert type(got) is type(want) or isinstance(got, tg.Tensor)
    weights = [rand(*tuple(w.shape), seed=7 + i) for i, w in enumerate(_parts(want))]
    for g, w, v in zip(_parts(got), _parts(want), weights):
        assert g.shape == tuple(w.shape) and np.allclose(g.numpy(), w.detach().numpy())
    sum((g * tg.tensor(v)).sum() for g, v in zip(_parts(got), weights)).backward()
    sum((w * torch.tensor(v)).sum() for w, v in zip(_parts(want), weights)).backward()
    assert np.allclose(ours.grad.numpy(), theirs.grad.numpy())


def test_writing_into_a_copy_leaves_the_input_alone():
    x = tg.tensor(X)
    tg.permute_copy(x, (1, 0)).zero_()
    tg.view_copy(x, (3, 2)).fill_(5.0)
    assert np.array_equal(x.numpy(), X)
