"""F.multi_head_attention_forward: PyTorch's function, every option (packed or separate
projections, bias_k / bias_v, add_zero_attn, static_k / static_v, masks, need_weights,
per-head weights, unbatched inputs), values and gradients equal to PyTorch's."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import tapegrad as tg
from helpers import check_grads

F = tg.nn.functional
R = np.random.default_rng(21)
E, H, L, S, N = 4, 2, 3, 5, 2


def _weights() -> dict:
    return {
        "in_proj_weight": R.standard_normal((3 * E, E)) * 0.5,
        "in_proj_bias": R.standard_normal(3 * E) * 0.1,
        "out_proj_weight": R.standard_normal((E, E)) * 0.5,
        "out_proj_bias": R.standard_normal(E) * 0.1,
        "bias_k": R.standard_normal((1, 1, E)),
        "bias_v": R.standard_normal((1, 1, E)),
    }


WEIGHTS = _weights()
Q, K, V = R.standard_normal((L, N, E)), R.standard_normal((S, N, E)), R.standard_normal((S, N, E))


def _call(lib: Any, options: dict, weights: dict) -> tuple:
    """(outputs, leaves) of the function in `lib` on float64 leaves of the shared arrays."""
    leaves = {k: lib.tensor(v, requires_grad=True) for k, v in weights.items()}
    q, k, v = (lib.tensor(a, requires_grad=True) for a in (Q, K, V))
    kw = {
        key: lib.tensor(val) if isinstance(val, np.ndarray) else val for key, val in options.items()
    }
    with_bias = kw.pop("bias_kv", False)
    out = lib.nn.functional.multi_head_attention_forward(
        q,
        k,
        v,
        E,
        H,
        leaves["in_proj_weight"],
        leaves["in_proj_bias"],
        leaves["bias_k"] if with_bias else None,
        leaves["bias_v"] if with_bias else None,
        kw.pop("add_zero_attn", False),
        0.0,
        leaves["out_proj_weight"],
        leaves["out_proj_bias"],
        **kw,
    )
    return out, [q, k, v] + [leaves[name] for name in sorted(leaves)]


MASK = np.zeros((L, S), bool)
MASK[1, 2] = True
PADDING = np.zeros((N, S), bool)
PADDING[0, 4] = True
OPTIONS = [
    {},
    {"bias_kv": True, "attn_mask": MASK, "key_padding_mask": PADDING},
    {"add_zero_attn": True, "key_padding_mask": PADDING, "average_attn_weights": False},
    {"bias_kv": True, "add_zero_attn": True, "need_weights": False, "attn_mask": MASK * -2.0},
]


@pytest.mark.parametrize("options", OPTIONS, ids=["plain", "bias_kv", "zero_attn", "no-weights"])
def test_values_and_gradients_equal_pytorchs(options: dict) -> None:
    torch = pytest.importorskip("torch")
    (out, w), leaves = _call(tg, options, WEIGHTS)
    (tout, tw), tleaves = _call(torch, options, WEIGHTS)
    np.testing.assert_allclose(out.numpy(), tout.detach().numpy(), rtol=1e-10, atol=1e-12)
    assert (w is None) == (tw is None)
    loss, tloss = out.sum(), tout.sum()
    if w is not None:
        np.testing.assert_allclose(w.numpy(), tw.detach().numpy(), rtol=1e-10, atol=1e-12)
        loss, tloss = loss + (w * w).sum(), tloss + (tw * tw).sum()
    loss.backward()
    tloss.backward()
    for ours, theirs in zip(leaves, tleaves):
        if theirs.grad is None:
            assert ours.grad is None or not ours.grad.numpy().any()
        else:
            np.testing.assert_allclose(
                ours.grad.numpy(), theirs.grad.numpy(), rtol=1e-9, atol=1e-12
            )


def test_every_pytorch_sample_gives_pytorchs_values() -> None:
    """PyTorch's own OpInfo samples (192: unbatched and batched, packed and separate weights,
    masks, dropout in training, seeded alike), values compared."""
    torch = pytest.importorskip("torch")
    from conformance import databases

    ops, _, _ = databases.load()
    (info,) = [o for o in ops if o.name == "nn.functional.multi_head_attention_forward"]

    def ours(v: Any) -> Any:
        return tg.tensor(v.detach().numpy().copy()) if isinstance(v, torch.Tensor) else v

    count = 0
    for sample in info.sample_inputs("cpu", torch.float64):
        torch.manual_seed(5)
        expected = torch.nn.functional.multi_head_attention_forward(
            sample.input, *sample.args, **sample.kwargs
        )
        tg.manual_seed(5)
        args = [ours(a) for a in sample.args]
        got = F.multi_head_attention_forward(
            ours(sample.input), *args, **{k: ours(v) for k, v in sample.kwargs.items()}
        )
        for a, b in zip(got, expected):
            assert (a is None) == (b is None)
            if a is not None:
                np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-10, atol=1e-12)
        count += 1
    assert count == 192


def test_unbatched_and_static_keys() -> None:
    torch = pytest.importorskip("torch")
    static_k, static_v = R.standard_normal((H, 6, E // H)), R.standard_normal((H, 6, E // H))
    results = []
    for lib in (tg, torch):
        t = lib.tensor
        out, w = lib.nn.functional.multi_head_attention_forward(
            t(Q[:, 0]), t(K[:, 0]), t(V[:, 0]), E, H, t(WEIGHTS["in_proj_weight"]), None,
            None, None, False, 0.0, t(WEIGHTS["out_proj_weight"]), None,
            static_k=t(static_k), static_v=t(static_v),
        )  # fmt: skip
        results.append((out, w))
    (out, w), (tout, tw) = results
    assert out.shape == tuple(tout.shape) == (L, E) and w.shape == tuple(tw.shape) == (L, 6)
    np.testing.assert_allclose(out.numpy(), tout.numpy(), rtol=1e-10)
    np.testing.assert_allclose(w.numpy(), tw.numpy(), rtol=1e-10)


def test_second_order_against_finite_differences() -> None:
    weights = {k: tg.tensor(v) for k, v in WEIGHTS.items()}

    def attention(q: tg.Tensor, w_in: tg.Tensor) -> tg.Tensor:
        out, _ = F.multi_head_attention_forward(
            q, q, q, E, H, w_in, weights["in_proj_bias"], weights["bias_k"],
            weights["bias_v"], True, 0.0, weights["out_proj_weight"], None,
        )  # fmt: skip
        return out

    check_grads(attention, Q[:, :1] * 0.5, WEIGHTS["in_proj_weight"])


def test_errors_are_pytorchs() -> None:
    q = tg.tensor(Q)
    w = {k: tg.tensor(v) for k, v in WEIGHTS.items()}

    def call(**kw: Any) -> Any:
        args = dict(
            query=q, key=q, value=q, embed_dim_to_check=E, num_heads=H,
            in_proj_weight=w["in_proj_weight"], in_proj_bias=None, bias_k=None, bias_v=None,
            add_zero_attn=False, dropout_p=0.0, out_proj_weight=w["out_proj_weight"],
            out_proj_bias=None,
        )  # fmt: skip
        args.update(kw)
        return F.multi_head_attention_forward(**args)

    with pytest.raises(AssertionError, match="was expecting embedding dimension of 8"):
        call(embed_dim_to_check=8)
    with pytest.raises(AssertionError, match="bias_k is set but bias_v is None"):
        call(bias_k=w["bias_k"])
    with pytest.raises(AssertionError, match="query should be unbatched 2D or batched 3D"):
        call(query=q.reshape(1, L, N, E))
    with pytest.raises(AssertionError, match="use_separate_proj_weight is True but q_proj"):
        call(use_separate_proj_weight=True)
    with pytest.raises(RuntimeError, match="The shape of the 2D attn_mask is"):
        call(attn_mask=tg.zeros(2, 2))
    with pytest.raises(AssertionError, match="only bool and floating types of attn_mask"):
        call(attn_mask=tg.zeros(L, L, dtype=tg.int64))
    with pytest.raises(RuntimeError, match="Need attn_mask if specifying the is_causal hint"):
        call(is_causal=True)
