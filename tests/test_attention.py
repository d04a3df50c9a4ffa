"""F.scaled_dot_product_attention: one node with a closed-form rule, equal (values, gradients,
second order) to the composite matmul + masked softmax + matmul and to PyTorch's."""

from __future__ import annotations

import math

import numpy as np
import pytest

import tapegrad as tg
import tapegrad.func
import tapegrad.nn.functional as F

RNG = np.random.default_rng(0)

# (q shape, k shape, v shape, mask: None | "bool" | "float" | "causal", mask shape)
CASES = {
    "plain": ((2, 3, 4), (2, 5, 4), (2, 5, 6), None, None),
    "heads": ((2, 3, 4, 8), (2, 3, 6, 8), (2, 3, 6, 5), None, None),
    "causal-square": ((2, 5, 4), (2, 5, 4), (2, 5, 3), "causal", None),
    "causal-short-q": ((2, 3, 4), (2, 6, 4), (2, 6, 3), "causal", None),
    "causal-long-q": ((1, 6, 4), (1, 3, 4), (1, 3, 2), "causal", None),
    "bool-mask": ((2, 2, 3, 4), (2, 2, 5, 4), (2, 2, 5, 6), "bool", (3, 5)),
    "bool-mask-batched": ((2, 2, 3, 4), (2, 2, 5, 4), (2, 2, 5, 6), "bool", (2, 1, 3, 5)),
    "float-mask": ((2, 3, 4), (2, 5, 4), (2, 5, 6), "float", (3, 5)),
    "float-mask-batched": ((2, 2, 3, 4), (2, 2, 5, 4), (2, 2, 5, 2), "float", (2, 2, 3, 5)),
    "broadcast-batch": ((3, 2, 3, 4), (2, 5, 4), (1, 2, 5, 6), None, None),
    "matrices": ((3, 4), (5, 4), (5, 2), None, None),
}


def make(case, dtype=np.float64):
    q_shape, k_shape, v_shape, kind, mask_shape = CASES[case]
    arrays = [RNG.normal(size=s).astype(dtype) for s in (q_shape, k_shape, v_shape)]
    mask = None
    if kind == "bool":
        mask = RNG.random(mask_shape) > 0.3
        mask[..., 0] = True  # (every row keeps a key: the composite's softmax has no 0/0)
    elif kind == "float":
        mask = RNG.normal(size=mask_shape).astype(dtype)
    return arrays, kind, mask


def composite(q, k, v, kind, mask):
    """The same attention in ordinary ops: q k^T * scale, masked_fill / + mask, softmax, @ v."""
    scores = q @ k.transpose(-2, -1) * (1.0 / math.sqrt(q.shape[-1]))
    if kind == "causal":
        rows, cols = scores.shape[-2:]
        scores = scores.masked_fill(tg.tensor(~np.tril(np.ones((rows, cols), bool))), -np.inf)
    elif kind == "bool":
        scores = scores.masked_fill(tg.tensor(~mask.numpy()), -np.inf)
    elif kind == "float":
        scores = scores + mask
    return scores.softmax(-1) @ v


def fused(q, k, v, kind, mask):
    if kind == "causal":
        return F.scaled_dot_product_attention(q, k, v, is_causal=True)
    return F.scaled_dot_product_attention(q, k, v, attn_mask=mask)


def leaves(arrays, kind, mask):
    tensors = [tg.tensor(a, requires_grad=True) for a in arrays]
    mask_t = None if mask is None else tg.tensor(mask, requires_grad=kind == "float")
    return tensors, mask_t


@pytest.mark.parametrize("case", sorted(CASES))
def test_equals_the_composite_values_and_gradients(case):
    arrays, kind, mask = make(case)
    (q, k, v), m = leaves(arrays, kind, mask)
    ours, theirs = fused(q, k, v, kind, m), composite(q, k, v, kind, m)
    assert ours.grad_fn.name == "ScaledDotProductAttentionBackward"  # one node
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-12, atol=1e-14)
    g = tg.tensor(RNG.normal(size=ours.shape))
    inputs = [q, k, v] + ([m] if kind == "float" else [])
    for a, b in zip(tg.autograd.grad(ours, inputs, g), tg.autograd.grad(theirs, inputs, g)):
        assert a.shape == b.shape
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-11, atol=1e-13)


@pytest.mark.parametrize("case", ["plain", "causal-short-q", "bool-mask", "float-mask", "heads"])
def test_gradcheck_and_gradgradcheck(case):
    arrays, kind, mask = make(case)
    (q, k, v), m = leaves(arrays, kind, mask)
    if kind == "float":
        fn = lambda q, k, v, m: F.scaled_dot_product_attention(q, k, v, attn_mask=m)  # noqa: E731
        inputs = (q, k, v, m)
    else:
        fn = lambda q, k, v: fused(q, k, v, kind, m)  # noqa: E731
        inputs = (q, k, v)
    assert tg.autograd.gradcheck(fn, inputs)
    assert tg.autograd.gradgradcheck(fn, inputs)


def test_second_order_equals_the_composite():
    arrays, kind, mask = make("float-mask")
    (q, k, v), m = leaves(arrays, kind, mask)
    results = []
    for build in (fused, composite):
        out = build(q, k, v, kind, m)
        (gq,) = tg.autograd.grad((out * out).sum(), [q], create_graph=True)
        results.append(tg.autograd.grad((gq * gq).sum(), [q, k, v, m]))
    for a, b in zip(*results):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-10, atol=1e-12)


def test_only_the_inputs_asked_for():
    arrays, kind, mask = make("bool-mask")
    (q, k, v), m = leaves(arrays, kind, mask)
    full = tg.autograd.grad(fused(q, k, v, kind, m).sum(), [q, k, v])
    for i, x in enumerate((q, k, v)):
        (alone,) = tg.autograd.grad(fused(q, k, v, kind, m).sum(), [x])
        np.testing.assert_array_equal(alone.numpy(), full[i].numpy())


def test_rows_with_every_key_masked_give_zeros_as_pytorch():
    q, k, v = (tg.tensor(RNG.normal(size=(2, 3, 4)), requires_grad=True) for _ in range(3))
    allowed = np.ones((3, 3), bool)
    allowed[1] = False
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=tg.tensor(allowed))
    assert np.all(out.numpy()[:, 1] == 0) and np.isfinite(out.numpy()).all()
    out.sum().backward()
    assert np.all(q.grad.numpy()[:, 1] == 0) and np.isfinite(k.grad.numpy()).all()
    minus_inf = tg.tensor(np.where(allowed, 0.0, -np.inf))
    np.testing.assert_array_equal(
        F.scaled_dot_product_attention(q, k, v, attn_mask=minus_inf).numpy(), out.numpy()
    )
    empty = F.scaled_dot_product_attention(q, k[:, :0], v[:, :0])
    assert empty.shape == (2, 3, 4) and np.all(empty.numpy() == 0)
    assert F.scaled_dot_product_attention(q[:, :0], k, v).shape == (2, 0, 4)


def test_scale_float32_and_gqa():
    q, k, v = (tg.randn(1, 4, 3, 8) for _ in range(3))
    out = F.scaled_dot_product_attention(q, k, v, scale=0.5)
    manual = ((q @ k.transpose(-2, -1)) * 0.5).softmax(-1) @ v
    assert out.dtype == np.float32
    np.testing.assert_allclose(out.numpy(), manual.numpy(), rtol=1e-5, atol=1e-6)
    k2, v2 = tg.randn(1, 2, 5, 8), tg.randn(1, 2, 5, 8)
    grouped = F.scaled_dot_product_attention(q, k2, v2, enable_gqa=True)
    repeated = [
        t.reshape(1, 2, 1, 5, 8).expand(1, 2, 2, 5, 8).reshape(1, 4, 5, 8) for t in (k2, v2)
    ]
    np.testing.assert_allclose(
        grouped.numpy(), F.scaled_dot_product_attention(q, *repeated).numpy(), rtol=1e-6
    )


def test_dropout_is_reproducible_and_differentiable():
    q, k, v = (tg.tensor(RNG.normal(size=(2, 3, 4)), requires_grad=True) for _ in range(3))

    def dropped(q, k, v):
        tg.manual_seed(11)  # (the same mask at every call: gradcheck evaluates it many times)
        return F.scaled_dot_product_attention(q, k, v, dropout_p=0.4)

    np.testing.assert_array_equal(dropped(q, k, v).numpy(), dropped(q, k, v).numpy())
    plain = F.scaled_dot_product_attention(q, k, v)
    assert not np.allclose(dropped(q, k, v).numpy(), plain.numpy())
    assert tg.autograd.gradcheck(dropped, (q, k, v))
    assert tg.autograd.gradgradcheck(dropped, (q, k, v))
    assert np.all(F.scaled_dot_product_attention(q, k, v, dropout_p=1.0).numpy() == 0)
    ones = tg.ones(1, 200, 4)
    tg.manual_seed(0)
    mean = F.scaled_dot_product_attention(ones, ones, ones, dropout_p=0.5).numpy().mean()
    assert abs(mean - 1.0) < 0.1  # (kept weights scaled by 1/(1-p): the expectation is kept)


def test_vmap_per_example_masks_gradients_and_dropout():
    q, k, v = (tg.tensor(RNG.normal(size=(3, 2, s, 4))) for s in (4, 6, 6))
    masks = (tg.tensor(RNG.random((3, 4, 6)) > 0.3), tg.tensor(RNG.normal(size=(3, 4, 6))))
    for mask in masks:  # (a bool mask is a parameter of the node, a float one an input)
        out = tg.vmap(F.scaled_dot_product_attention)(q, k, v, mask)
        each = [F.scaled_dot_product_attention(q[i], k[i], v[i], mask[i]) for i in range(3)]
        np.testing.assert_allclose(out.numpy(), np.stack([e.numpy() for e in each]), rtol=1e-12)
    loss = lambda q, k, v, m: F.scaled_dot_product_attention(q, k, v, m).sum()  # noqa: E731
    grads = tg.vmap(tg.func.grad(loss, argnums=(0, 1, 2, 3)))(q, k, v, masks[1])
    for i in range(3):
        want = tg.func.grad(loss, argnums=(0, 1, 2, 3))(q[i], k[i], v[i], masks[1][i])
        for got, w in zip(grads, want):
            np.testing.assert_allclose(got.numpy()[i], w.numpy(), rtol=1e-10, atol=1e-12)
    same_q = tg.tensor(np.stack([q[0].numpy()] * 3))
    dropped = lambda q: F.scaled_dot_product_attention(q, k[0], v[0], dropout_p=0.5)  # noqa: E731
    different = tg.vmap(dropped, randomness="different")(same_q).numpy()
    same = tg.vmap(dropped, randomness="same")(same_q).numpy()
    assert not np.allclose(different[0], different[1])
    np.testing.assert_array_equal(same[0], same[1])
    with pytest.raises(RuntimeError, match="randomness"):
        tg.vmap(dropped)(same_q)


def test_formula_is_the_closed_form():
    text = tg.autograd.formula("scaled_dot_product_attention")
    assert "softmax(masked(q @ T(k) * scale + bias, allowed, causal)) * keep) @ v" in text
    assert "dL/dq" in text


def test_errors_as_pytorch():
    q, k, v = tg.randn(2, 3, 4), tg.randn(2, 5, 4), tg.randn(2, 5, 6)
    cases = [
        (
            lambda: F.scaled_dot_product_attention(
                q, k, v, tg.ones(3, 5, dtype=tg.bool_), 0.0, True
            ),
            "Explicit attn_mask should not be set when is_causal=True",
        ),
        (lambda: F.scaled_dot_product_attention(q, k.to(tg.float64), v), "same dtype"),
        (lambda: F.scaled_dot_product_attention(q[0, 0], k[0], v[0]), "at least 2 dimensional"),
        (
            lambda: F.scaled_dot_product_attention(q, k, v, tg.ones(3, 5, dtype=tg.int64)),
            "Expected attn_mask dtype to be bool or float",
        ),
        (
            lambda: F.scaled_dot_product_attention(q, k, v, dropout_p=1.5),
            "dropout probability has to be between 0 and 1",
        ),
        (
            lambda: F.scaled_dot_product_attention(q, k, v, tg.ones(2, 2, 3, 5, dtype=tg.bool_)),
            "does not broadcast",
        ),
        (lambda: F.scaled_dot_product_attention(q, k[:, :, :3], v), "feature size"),
        (lambda: F.scaled_dot_product_attention(q, k, v[:, :4]), "sequence length"),
        (
            lambda: F.scaled_dot_product_attention(
                tg.randn(1, 3, 2, 4), tg.randn(1, 2, 2, 4), tg.randn(1, 2, 2, 4), enable_gqa=True
            ),
            "must divide the number of heads",
        ),
    ]
    for call, message in cases:
        with pytest.raises(RuntimeError, match=message):
            call()
    ints = tg.ones(2, 2, dtype=tg.int64)
    with pytest.raises(RuntimeError, match="floating-point"):
        F.scaled_dot_product_attention(ints, ints, ints)


# ---- against PyTorch ---------------------------------------------------------------------------
@pytest.mark.parametrize("case", sorted(CASES))
def test_values_and_gradients_match_torch(case):
    torch = pytest.importorskip("torch", reason="the comparison with torch needs it")
    arrays, kind, mask = make(case)
    (q, k, v), m = leaves(arrays, kind, mask)
    tq, tk, tv = (torch.tensor(a, requires_grad=True) for a in arrays)
    tm = None if mask is None else torch.tensor(mask, requires_grad=kind == "float")
    causal = kind == "causal"
    ours = fused(q, k, v, kind, m)
    theirs = torch.nn.functional.scaled_dot_product_attention(
        tq, tk, tv, attn_mask=tm, is_causal=causal
    )
    np.testing.assert_allclose(ours.numpy(), theirs.detach().numpy(), rtol=1e-12, atol=1e-14)
    g = RNG.normal(size=ours.shape)
    inputs = [q, k, v] + ([m] if kind == "float" else [])
    t_inputs = [tq, tk, tv] + ([tm] if kind == "float" else [])
    got = tg.autograd.grad(ours, inputs, tg.tensor(g))
    want = torch.autograd.grad(theirs, t_inputs, torch.tensor(g))
    for a, b in zip(got, want):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-11, atol=1e-13)


def test_masked_rows_gqa_and_second_order_match_torch():
    torch = pytest.importorskip("torch", reason="the comparison with torch needs it")
    tF = torch.nn.functional
    arrays = [RNG.normal(size=s) for s in ((1, 4, 3, 8), (1, 2, 5, 8), (1, 2, 5, 8))]
    allowed = RNG.random((3, 5)) > 0.5
    allowed[2] = False
    (q, k, v), tensors = (
        leaves(arrays, None, None)[0],
        [torch.tensor(a, requires_grad=True) for a in arrays],
    )
    ours = F.scaled_dot_product_attention(q, k, v, tg.tensor(allowed), enable_gqa=True)
    from torch.nn.attention import SDPBackend, sdpa_kernel

    with sdpa_kernel(SDPBackend.MATH):  # (PyTorch's CPU flash kernel has no second order)
        theirs = tF.scaled_dot_product_attention(*tensors, torch.tensor(allowed), enable_gqa=True)
    np.testing.assert_allclose(ours.numpy(), theirs.detach().numpy(), rtol=1e-12, atol=1e-14)
    (gq,) = tg.autograd.grad((ours**2).sum(), [q], create_graph=True)
    (tgq,) = torch.autograd.grad((theirs**2).sum(), [tensors[0]], create_graph=True)
    got = tg.autograd.grad((gq**2).sum(), [q, k, v])
    want = torch.autograd.grad((tgq**2).sum(), tensors)
    for a, b in zip(got, want):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("case", sorted(CASES))
def test_the_in_place_weights_on_arrays_equal_the_recorded_ones(case):
    """attention_weights on arrays (the plain backward's path: every pass in place) gives the
    values the same operations give on Tensors, bit for bit; also with an empty row and a bool
    mask that broadcasts the scores to more batch axes."""
    from tapegrad.primitives.attention import NO_MASK, attention_weights

    (q, k, _), kind, mask = make(case)
    allowed = mask if kind == "bool" else None
    bias = mask if kind == "float" else NO_MASK
    scale = 1 / math.sqrt(q.shape[-1])
    arrays = attention_weights(q, k, bias, scale, allowed, kind == "causal")
    bias_t = tg.tensor(bias) if kind == "float" else NO_MASK
    tensors = attention_weights(
        tg.tensor(q), tg.tensor(k), bias_t, scale, allowed, kind == "causal"
    )
    assert arrays.__class__ is np.ndarray and arrays.shape == tuple(tensors.shape)
    np.testing.assert_array_equal(arrays, tensors.numpy())
    allowed = np.ones((2, 3, 5), bool)
    allowed[1, 2] = False  # (an empty row: zero weights) and a batch axis q and k do not have
    q, k = RNG.normal(size=(3, 4)), RNG.normal(size=(5, 4))
    arrays = attention_weights(q, k, None, 0.5, allowed, False)
    tensors = attention_weights(tg.tensor(q), tg.tensor(k), NO_MASK, 0.5, allowed, False)
    np.testing.assert_array_equal(arrays, tensors.numpy())
    assert arrays.shape == (2, 3, 5) and not arrays[1, 2].any()


def test_the_forward_keeps_short_weights_for_the_backward_and_forgets_them():
    """The plain backward reuses the W its forward kept (the same values as recomputing it, bit
    for bit); the entry goes with the output; a long sequence's W (over 4x the output) is not
    kept."""
    import gc

    from tapegrad.primitives import attention

    arrays, keys = make("causal-square")[0], []

    def grads(keep_entry: bool) -> list:
        q, k, v = (tg.tensor(a, requires_grad=True) for a in arrays)
        out = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        assert id(out.numpy()) in attention._kept or not keep_entry
        keys.append(id(out.numpy()))
        if not keep_entry:
            attention._kept.clear()
        (out * tg.tensor(np.arange(out.numel()).reshape(out.shape))).sum().backward()
        return [t.grad.numpy() for t in (q, k, v)]

    for kept, recomputed in zip(grads(True), grads(False)):
        np.testing.assert_array_equal(kept, recomputed)
    gc.collect()
    assert not set(keys) & set(attention._kept)  # (the outputs are gone, their entries too)
    q, k, v = (tg.tensor(RNG.normal(size=(16, 2))) for _ in range(3))
    out = F.scaled_dot_product_attention(q, k, v)
    assert id(out.numpy()) not in attention._kept  # (W 16 x 16 against an output 16 x 2)
