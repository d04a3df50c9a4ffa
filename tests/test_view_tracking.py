"""Which op outputs are views (tensor/record.py view_of, mark_view): a view shares its root's
version counter, so an in-place change through either is seen by both, a value saved before it is
stale at backward, and a recorded change of the root brings its views' history up to date. Views
of a leaf, of a view and of an op's output, and copies that are no views, each against PyTorch."""

from __future__ import annotations

import numpy as np
import pytest

import tapegrad as tg
from helpers import rand

torch = pytest.importorskip("torch")


@pytest.mark.parametrize(
    "make",
    [
        lambda w: w.T,  # (a view of the leaf's own memory)
        lambda w: w[1:].T,  # (a view of a view: NumPy names the leaf's array as its owner)
        lambda w: w.reshape(3, 4).T,
        lambda w: w.t()[:, 1:],
    ],
)
def test_views_share_the_version_counter_of_their_root(make):
    w, tw = tg.tensor(rand(4, 3), requires_grad=True), torch.tensor(rand(4, 3), requires_grad=True)
    v, tv = make(w), make(tw)
    assert not v.is_leaf and not tv.is_leaf
    for _ in range(2):  # (the second view of the same root takes the path the first made)
        v, tv = make(w), make(tw)
        with tg.no_grad(), torch.no_grad():
            w.add_(1.0), tw.add_(1.0)
        assert v._version == tv._version == w._version == tw._version
        assert np.allclose(v.numpy(), tv.detach().numpy())


def test_a_copy_is_no_view():
    w, tw = tg.tensor(rand(4, 3), requires_grad=True), torch.tensor(rand(4, 3), requires_grad=True)
    c, tc = w.T.reshape(-1), tw.T.reshape(-1)  # (not contiguous: reshape copies)
    with tg.no_grad(), torch.no_grad():
        w.add_(1.0), tw.add_(1.0)
    assert c._version == tc._version == 0
    assert np.allclose(c.numpy(), tc.detach().numpy())


def test_a_value_saved_through_a_view_is_stale_after_the_root_changes():
    w = tg.tensor(rand(4, 3), requires_grad=True)
    y = w.T.sin().sum()  # (sin saves the transposed view)
    with tg.no_grad():
        w.mul_(2.0)
    with pytest.raises(RuntimeError, match="modified by an in-place operation"):
        y.backward()


def test_a_root_that_had_views_is_still_a_leaf_and_refuses_inplace():
    w = tg.tensor(rand(4, 3), requires_grad=True)
    w.T, w.T  # noqa: B018  (views made and dropped)
    assert w.is_leaf and w.grad_fn is None
    with pytest.raises(RuntimeError, match="leaf tensor that requires grad"):
        w.add_(1.0)
    with pytest.raises(RuntimeError, match="view of a leaf tensor"):
        w.T.add_(1.0)


def test_views_of_an_op_output_follow_its_inplace_change():
    def program(lib, w):
        h = w * 2.0
        v = h.T
        h.mul_(3.0)  # (recorded: v's history is brought up to date)
        return (v * v).sum()

    w, tw = tg.tensor(rand(4, 3), requires_grad=True), torch.tensor(rand(4, 3), requires_grad=True)
    loss, tloss = program(tg, w), program(torch, tw)
    loss.backward(), tloss.backward()
    assert np.allclose(loss.item(), tloss.item(), rtol=1e-6)
    assert np.allclose(w.grad.numpy(), tw.grad.numpy(), rtol=1e-6)
