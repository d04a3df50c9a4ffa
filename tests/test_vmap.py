"""tg.vmap / tapegrad.func.vmap: in_axes and out_axes (ints, negatives, None, nested tuples, lists
and dicts), kwargs, nested vmaps, chunk_size, randomness, in-place ops, values read off a batched
tensor, and the errors (each checked against torch.func's behaviour where torch is installed)."""

from __future__ import annotations

import numpy as np
import pytest

import tapegrad as tg
import tapegrad.func
from tapegrad.func import vmap

RNG = np.random.default_rng(0)
X = RNG.standard_normal((4, 3))
Y = RNG.standard_normal((4, 3))
W = RNG.standard_normal((3, 2))


def t(a):
    return tg.tensor(np.asarray(a, np.float64))


def loop(fn, *arrays, axis=0):
    """fn on each example, stacked: the reference vmap must equal."""
    n = arrays[0].shape[axis]
    return np.stack([fn(*[t(np.take(a, i, axis)) for a in arrays]).numpy() for i in range(n)])


# ---- in_axes / out_axes -------------------------------------------------------------------------
def test_names_jax_and_torch_func():
    f = lambda x, w: x @ w  # noqa: E731
    a = tg.vmap(f, in_axes=(0, None), out_axes=0)(t(X), t(W))
    b = vmap(f, in_dims=(0, None), out_dims=0)(t(X), t(W))
    np.testing.assert_allclose(a.numpy(), X @ W)
    np.testing.assert_allclose(b.numpy(), X @ W)


@pytest.mark.parametrize("axis", [0, 1, -1, -2])
def test_in_axes_any_axis_and_negative(axis):
    data = RNG.standard_normal((4, 5))
    out = tg.vmap(lambda v: v.sin() * v.sum(), in_axes=axis)(t(data))
    want = loop(lambda v: v.sin() * v.sum(), data, axis=axis)
    np.testing.assert_allclose(out.numpy(), want)


@pytest.mark.parametrize("axis", [0, 1, 2, -1, -3])
def test_out_axes_places_the_batch(axis):
    out = tg.vmap(lambda v: v[:, None] * v, out_axes=axis)(t(X))
    want = np.moveaxis(np.stack([x[:, None] * x for x in X]), 0, axis)
    np.testing.assert_allclose(out.numpy(), want)


def test_nested_pytrees_of_in_axes_and_outputs():
    def f(pair, d):
        a, b = pair
        return {"sum": a + d["w"].sum(), "parts": [a * b, d["w"]]}

    out = tg.vmap(f, in_axes=((0, 1), {"w": None}), out_axes={"sum": 0, "parts": [1, None]})(
        (t(X), t(Y.T)), {"w": t(W)}
    )
    np.testing.assert_allclose(out["sum"].numpy(), X + W.sum())
    np.testing.assert_allclose(out["parts"][0].numpy(), (X * Y).T)
    np.testing.assert_allclose(out["parts"][1].numpy(), W)
    assert isinstance(out["parts"], list)


def test_an_axis_for_a_whole_subtree():
    out = tg.vmap(lambda p: p[0] * p[1], in_axes=(0,))((t(X), t(Y)))
    np.testing.assert_allclose(out.numpy(), X * Y)


def test_kwargs_are_not_batched():
    out = tg.vmap(lambda x, *, w: x @ w)(t(X), w=t(W))
    np.testing.assert_allclose(out.numpy(), X @ W)


def test_an_unbatched_output_is_broadcast_over_the_batch():
    out = tg.vmap(lambda x: t(W))(t(X))
    assert out.shape == (4, 3, 2)
    np.testing.assert_allclose(out.numpy(), np.broadcast_to(W, (4, 3, 2)))
    same = tg.vmap(lambda x: (x, t(W)), out_axes=(0, None))(t(X))[1]
    np.testing.assert_allclose(same.numpy(), W)


def test_non_tensor_output_with_out_axes_none_passes_through():
    assert tg.vmap(lambda x: (x, 2), out_axes=(0, None))(t(X))[1] == 2


def test_numpy_array_inputs_are_batched_like_tensors():
    np.testing.assert_allclose(tg.vmap(lambda x: x * 2)(X).numpy(), X * 2)


def test_nested_vmap_over_two_axes_and_closure():
    out = tg.vmap(lambda x: tg.vmap(lambda y: (x * y).sum())(t(Y)))(t(X))
    np.testing.assert_allclose(out.numpy(), X @ Y.T)


def test_chunk_size_gives_the_same_result():
    f = lambda x, w: (x @ w).tanh()  # noqa: E731
    whole = vmap(f, in_dims=(0, None))(t(X), t(W))
    for size in (1, 3, 4, 10):
        part = vmap(f, in_dims=(0, None), chunk_size=size)(t(X), t(W))
        np.testing.assert_allclose(part.numpy(), whole.numpy())


def test_batched_tensor_inside_reports_one_example():
    seen = {}

    def f(x):
        seen["shape"], seen["len"], seen["ndim"] = x.shape, len(x), x.ndim
        seen["type"] = type(x).__name__
        return x

    tg.vmap(f)(t(np.zeros((5, 2, 3))))
    assert seen == {"shape": (2, 3), "len": 2, "ndim": 2, "type": "BatchedTensor"}


# ---- values read off a batched tensor -----------------------------------------------------------
def test_comparisons_argmax_and_masks_are_per_example():
    out = tg.vmap(lambda x: (x > 0).astype(tg.float64) + x.argmax().astype(tg.float64))(t(X))
    np.testing.assert_allclose(out.numpy(), (X > 0) + X.argmax(1)[:, None])


def test_max_with_a_dimension_gives_values_and_indices_per_example():
    values, indices = tg.vmap(lambda x: tuple(x.max(0)))(t(np.stack([X, Y], 1)))
    np.testing.assert_allclose(values.numpy(), np.maximum(X, Y))
    np.testing.assert_array_equal(indices.numpy(), (Y > X).astype(int))


def test_indexing_with_a_per_example_index():
    labels = tg.tensor(np.array([2, 0, 1, 2]))
    out = tg.vmap(lambda x, i: x[i])(t(X), labels)
    np.testing.assert_allclose(out.numpy(), X[np.arange(4), [2, 0, 1, 2]])


def test_cross_entropy_with_per_example_targets():
    labels = tg.tensor(np.array([2, 0, 1, 2]))
    out = tg.vmap(lambda x, y: tg.nn.functional.cross_entropy(x[None], y[None]))(t(X), labels)
    want = tg.nn.functional.cross_entropy(t(X), labels, reduction="none")
    np.testing.assert_allclose(out.numpy(), want.numpy())


def test_item_reads_a_value_all_examples_share_and_refuses_one_that_differs():
    assert tg.vmap(lambda x: x * float(x.shape[0] + (x * 0).sum()))(t(X)).shape == (4, 3)
    with pytest.raises(RuntimeError, match="differs between the examples"):
        tg.vmap(lambda x: x * float(x.sum()))(t(X))
    with pytest.raises(RuntimeError, match="differs between the examples"):
        tg.vmap(lambda x: x if x.sum() > 0 else -x)(t(X))


def test_numpy_of_a_batched_tensor_refuses_to_become_one_array():
    with pytest.raises(TypeError, match="cannot become one NumPy array"):
        tg.vmap(lambda x: tg.tensor(np.asarray(x.numpy())))(t(X))
    with pytest.raises(TypeError, match="no batching rule here"):
        tg.vmap(lambda x: x * float(np.median(x.numpy())))(t(X))


def test_printing_a_batched_tensor():
    text = []
    tg.vmap(lambda x: text.append(repr(x)) or x)(t(X))
    assert text[0].startswith("BatchedTensor(level 1, batch of 4")


# ---- randomness -----------------------------------------------------------------------------
def test_random_ops_raise_by_default():
    with pytest.raises(RuntimeError, match="randomness='error'"):
        tg.vmap(lambda x: x + tg.randn(3))(t(X))
    with pytest.raises(RuntimeError, match="randomness='error'"):
        tg.vmap(lambda x: tg.nn.functional.dropout(x, 0.5))(t(X))


def test_randomness_different_draws_per_example_same_shares_one_draw():
    ones = t(np.ones((6, 50)))
    diff = tg.vmap(lambda x: x * tg.rand(50), randomness="different")(ones).numpy()
    same = tg.vmap(lambda x: x * tg.rand(50), randomness="same")(ones).numpy()
    assert not np.allclose(diff[0], diff[1])
    np.testing.assert_array_equal(same, np.broadcast_to(same[0], same.shape))
    drop = tg.vmap(lambda x: tg.nn.functional.dropout(x, 0.5), randomness="different")(ones)
    kept = (drop.numpy() != 0).mean(1)
    assert not np.array_equal(drop.numpy()[0], drop.numpy()[1]) and 0.2 < kept.mean() < 0.8


def test_randomness_same_is_the_same_over_chunks():
    ones = t(np.ones((6, 5)))
    out = vmap(lambda x: x * tg.rand(5), randomness="same", chunk_size=2)(ones).numpy()
    np.testing.assert_array_equal(out, np.broadcast_to(out[0], out.shape))


def test_random_draws_outside_vmap_are_untouched():
    tg.manual_seed(3)
    a = tg.rand(3).numpy()
    tg.manual_seed(3)
    tg.vmap(lambda x: x)(t(X))
    np.testing.assert_array_equal(tg.rand(3).numpy(), a)


# ---- in-place ---------------------------------------------------------------------------------
def test_inplace_on_a_batched_tensor_writes_the_batch():
    def f(x, y):
        z = x * 1.0
        z += y
        z[0] = 5.0
        return z

    out = tg.vmap(f)(t(X), t(Y))
    want = X + Y
    want[:, 0] = 5.0
    np.testing.assert_allclose(out.numpy(), want)


def test_inplace_writing_per_example_values_into_a_shared_tensor_raises():
    shared = t(np.zeros(3))
    with pytest.raises(RuntimeError, match="differ between the examples"):
        tg.vmap(lambda x: shared.add_(x))(t(X))
    with pytest.raises(RuntimeError, match="differ between the examples"):
        tg.vmap(lambda x: shared.__setitem__(0, x[0]))(t(X))


def test_inplace_then_per_example_gradient():
    def f(x):
        z = x * 2.0
        z[1:] *= x[1:]
        return z.sum()

    g = tg.vmap(tg.grad(f))(t(X))
    want = np.stack([tg.grad(f)(t(x)).numpy() for x in X])
    np.testing.assert_allclose(g.numpy(), want)


# ---- errors (torch.func's) ----------------------------------------------------------------------
ERRORS = [
    ("list-in-dims", lambda: vmap(tg.sin, in_dims=[0])(t(X)), ValueError, "in_dims"),
    ("none-in-dims", lambda: vmap(tg.sin, in_dims=None)(t(X)), ValueError, "in_dims"),
    ("sizes", lambda: vmap(tg.add)(t(X), t(np.ones((3, 3)))), ValueError, r"sizes \[4, 3\]"),
    ("structure", lambda: vmap(tg.add, in_dims=(0,))(t(X), t(Y)), ValueError, "structure"),
    ("range", lambda: vmap(tg.sin, in_dims=2)(t(X)), ValueError, "-2 <= in_dim < 2"),
    ("no-batch", lambda: vmap(tg.sin, in_dims=(None,))(t(X)), ValueError, "at least one"),
    ("non-tensor", lambda: vmap(lambda a, b: a * b)(t(X), 2.0), ValueError, "float"),
    ("returns-float", lambda: vmap(lambda a: 1.0)(t(X)), ValueError, "only return tensors"),
    ("batched-none", lambda: vmap(lambda a: a, out_dims=None)(t(X)), ValueError, "batched"),
    ("out-range", lambda: vmap(lambda a: a, out_dims=5)(t(X)), IndexError, "out of range"),
    ("no-inputs", lambda: vmap(lambda: t(X))(), ValueError, "no inputs"),
    ("0-d", lambda: vmap(tg.sin)(t(1.0)), ValueError, "0 dimension"),
    ("chunk", lambda: vmap(tg.sin, chunk_size=0), ValueError, "chunk_size"),
    ("randomness", lambda: vmap(tg.sin, randomness="foo"), RuntimeError, "randomness"),
    ("backward", lambda: vmap(lambda a: a.sum().backward())(t(X)), RuntimeError, "backward"),
]


@pytest.mark.parametrize("make,exc,pattern", [e[1:] for e in ERRORS], ids=[e[0] for e in ERRORS])
def test_errors_are_clear(make, exc, pattern):
    with pytest.raises(exc, match=pattern):
        make()


@pytest.mark.parametrize("name", [e[0] for e in ERRORS if e[0] not in ("backward",)])
def test_torch_func_raises_the_same_kind_of_error(name):
    torch = pytest.importorskip("torch")
    tv = torch.func.vmap
    x, y = torch.tensor(X), torch.tensor(Y)
    calls = {
        "list-in-dims": lambda: tv(torch.sin, in_dims=[0])(x),
        "none-in-dims": lambda: tv(torch.sin, in_dims=None)(x),
        "sizes": lambda: tv(torch.add)(x, torch.ones(3, 3)),
        "structure": lambda: tv(torch.add, in_dims=(0,))(x, y),
        "range": lambda: tv(torch.sin, in_dims=2)(x),
        "no-batch": lambda: tv(torch.sin, in_dims=(None,))(x),
        "non-tensor": lambda: tv(lambda a, b: a * b)(x, 2.0),
        "returns-float": lambda: tv(lambda a: 1.0)(x),
        "batched-none": lambda: tv(lambda a: a, out_dims=None)(x),
        "out-range": lambda: tv(lambda a: a, out_dims=5)(x),
        "no-inputs": lambda: tv(lambda: x)(),
        "0-d": lambda: tv(torch.sin)(torch.tensor(1.0)),
        "chunk": lambda: tv(torch.sin, chunk_size=0)(x),
        "randomness": lambda: tv(torch.sin, randomness="foo")(x),
    }
    exc = {e[0]: e[2] for e in ERRORS}[name]
    with pytest.raises(exc):
        calls[name]()


def test_a_batched_tensor_kept_past_its_vmap_is_refused():
    kept = []
    tg.vmap(lambda x: kept.append(x) or x)(t(X))
    with pytest.raises(RuntimeError, match="after its vmap returned"):
        kept[0] * 2


def test_custom_function_needs_generate_vmap_rule():
    class Square(tg.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return 2 * x * g

    with pytest.raises(RuntimeError, match="generate_vmap_rule"):
        tg.vmap(Square.apply)(t(X))

    class Batched(Square):
        generate_vmap_rule = True

    np.testing.assert_allclose(tg.vmap(Batched.apply)(t(X)).numpy(), X * X)
    g = tg.vmap(tg.grad(lambda x: Batched.apply(x).sum()))(t(X))
    np.testing.assert_allclose(g.numpy(), 2 * X)
    with pytest.raises(RuntimeError, match="outside the vmap"):
        tg.grad(lambda xs: tg.vmap(Batched.apply)(xs).sum())(t(X))


def test_an_op_without_a_batching_rule_is_named(monkeypatch):
    monkeypatch.setattr(tg.primitives.REGISTRY["sin"], "batch", None)
    with pytest.raises(RuntimeError, match="'sin' has no batching rule"):
        tg.vmap(tg.sin)(t(X))


def test_torch_func_vmap_agrees_in_float64():
    torch = pytest.importorskip("torch")

    def f(x, w, b):
        return (x @ w).tanh().sum(-1) + b

    got = vmap(f, in_dims=(0, None, 0))(t(X), t(W), t(Y[:, 0]))
    want = torch.func.vmap(f, in_dims=(0, None, 0))(
        torch.tensor(X), torch.tensor(W), torch.tensor(Y[:, 0])
    )
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-12)


def test_layers_per_example_gradients_equal_a_loop():
    """Embedding (a per-example index into shared weights), LayerNorm, attention and BatchNorm in
    eval mode, under vmap(grad), against one gradient per example."""
    tg.manual_seed(0)

    class Block(tg.nn.Module):
        def __init__(self):
            super().__init__()
            self.emb, self.ln = tg.nn.Embedding(10, 8), tg.nn.LayerNorm(8)
            self.q, self.bn, self.out = tg.nn.Linear(8, 8), tg.nn.BatchNorm1d(8), tg.nn.Linear(8, 3)

        def forward(self, ids):
            h = self.ln(self.emb(ids))
            attended = (self.q(h) @ h.T / 8**0.5).softmax(-1) @ h
            return self.out(self.bn(attended).mean(0))

    block = Block().double().eval()
    params = {k: v.detach() for k, v in block.named_parameters()}
    buffers = {k: v.detach() for k, v in block.named_buffers()}
    ids = tg.tensor(RNG.integers(0, 10, (5, 4)))
    labels = tg.tensor(np.array([0, 2, 1, 1, 0]))

    def loss(p, i, y):
        logits = tapegrad.func.functional_call(block, (p, buffers), (i,))
        return tg.nn.functional.cross_entropy(logits[None], y[None])

    got = vmap(tapegrad.func.grad(loss), in_dims=(None, 0, 0))(params, ids, labels)
    for b in range(5):
        for name, g in tapegrad.func.grad(loss)(params, ids[b], labels[b]).items():
            np.testing.assert_allclose(got[name].numpy()[b], g.numpy(), atol=1e-10)
    block.train()  # (batch statistics would update running buffers the batch shares)
    with pytest.raises(RuntimeError, match="differ between the examples"):
        vmap(lambda i: tapegrad.func.functional_call(block, (params, buffers), (i,)))(ids)
