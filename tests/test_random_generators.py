"""tg.Generator and the random factories: each generator its own stream (same seed, same numbers,
every run), the default generator behind tg.manual_seed, generator= on every sampler, and
randint's two call forms, multinomial and bernoulli with PyTorch's results and errors."""

from __future__ import annotations

import inspect
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import tapegrad as tg

# every sampler that takes generator=, as a function of the generator
SAMPLERS = {
    "randn": lambda g: tg.randn(3, 4, generator=g),
    "rand": lambda g: tg.rand(5, generator=g),
    "randint": lambda g: tg.randint(0, 100, (6,), generator=g),
    "randperm": lambda g: tg.randperm(20, generator=g),
    "normal": lambda g: tg.normal(0.0, 2.0, (4,), generator=g),
    "normal-tensors": lambda g: tg.normal(tg.zeros(3), tg.ones(3), generator=g),
    "multinomial": lambda g: tg.multinomial(tg.tensor([0.2, 0.3, 0.5]), 8, True, generator=g),
    "bernoulli": lambda g: tg.bernoulli(tg.full((6,), 0.5), generator=g),
    "rand_like": lambda g: tg.rand_like(tg.ones(3), generator=g),
    "randn_like": lambda g: tg.randn_like(tg.ones(3), generator=g),
    "randint_like": lambda g: tg.randint_like(tg.ones(3), 9, generator=g),
}


def test_generator_api():
    g = tg.Generator()
    assert g.initial_seed() == 67280421310721  # a new torch.Generator()'s seed
    assert g.manual_seed(2147483647) is g and g.initial_seed() == 2147483647
    assert g.device == tg.device("cpu") and g.device.type == "cpu"
    fresh = g.seed()
    assert isinstance(fresh, int) and 0 <= fresh < 2**64 and g.initial_seed() == fresh
    assert tg.Generator(device="cpu").initial_seed() == 67280421310721
    with pytest.raises(RuntimeError, match="CPU"):
        tg.Generator(device="cuda")


@pytest.mark.parametrize("name", sorted(SAMPLERS))
def test_same_seed_same_numbers_and_the_default_stream_untouched(name):
    draw = SAMPLERS[name]
    tg.manual_seed(0)
    default_before = tg.rand(4).tolist()
    tg.manual_seed(0)
    first = draw(tg.Generator().manual_seed(123)).tolist()
    assert tg.rand(4).tolist() == default_before  # drawing from g left the default stream alone
    again = draw(tg.Generator().manual_seed(123)).tolist()
    other = draw(tg.Generator().manual_seed(124)).tolist()
    assert first == again and first != other
    g = tg.Generator().manual_seed(5)
    assert draw(g).tolist() != draw(g).tolist() or name == "bernoulli"  # (the stream moves on)


def test_state_round_trip_and_errors():
    g = tg.Generator().manual_seed(7)
    tg.randn(3, generator=g)
    state = g.get_state()
    assert state.dtype == np.uint8 and state.ndim == 1
    a = tg.randn(5, generator=g).tolist()
    assert g.set_state(state) is g and tg.randn(5, generator=g).tolist() == a
    assert g.initial_seed() == 7
    tg.manual_seed(3)
    saved = tg.get_rng_state()
    b = tg.rand(3).tolist()
    tg.set_rng_state(saved)
    assert tg.rand(3).tolist() == b
    with pytest.raises(TypeError, match="uint8"):
        g.set_state(tg.zeros(3))
    with pytest.raises(RuntimeError, match="state size to be 3"):
        g.set_state(tg.zeros(3, dtype=tg.uint8))


def test_manual_seed_returns_the_default_generator_and_takes_pytorch_seeds():
    g = tg.manual_seed(1)
    assert g is tg.default_generator and tg.initial_seed() == 1
    assert tg.manual_seed(-1).initial_seed() == 2**64 - 1  # (negative seeds wrap, as PyTorch)
    assert tg.manual_seed(True).initial_seed() == 1
    with pytest.raises(ValueError, match="out of range"):
        tg.manual_seed(2**64)
    with pytest.raises(TypeError, match="manual_seed expects an int"):
        tg.manual_seed(1.5)
    s = tg.seed()
    assert tg.initial_seed() == s
    tg.manual_seed(2)
    a = tg.randn(3).tolist()
    tg.manual_seed(2)
    assert tg.randn(3).tolist() == a


def test_the_same_seed_gives_the_same_numbers_in_every_run():
    program = (
        "import tapegrad as tg\n"
        "g = tg.Generator().manual_seed(2147483647)\n"
        "print(tg.randn(3, generator=g).tolist(), tg.multinomial(tg.ones(5), 5, generator=g))\n"
        "tg.manual_seed(42); print(tg.rand(2).tolist(), tg.randint(0, 9, (3,)).tolist())\n"
    )
    root = str(Path(__file__).resolve().parent.parent)

    def run() -> str:
        done = subprocess.run(
            [sys.executable, "-c", program], capture_output=True, text=True, cwd=root, check=True
        )
        return done.stdout

    assert run() == run()


# ---- randint -----------------------------------------------------------------------------------
def test_randint_both_call_forms():
    tg.manual_seed(0)
    for t in (
        tg.randint(10, (3,)),
        tg.randint(3, 10, (3,)),
        tg.randint(high=10, size=(3,)),
        tg.randint(low=2, high=10, size=(3,)),
        tg.randint(10, size=(3,)),
        tg.randint(2, 10, size=(3,)),
        tg.randint(10, [3]),
    ):
        assert t.shape == (3,) and t.dtype == np.int64
        assert all(0 <= v < 10 for v in t.tolist())
    assert all(v >= 3 for v in tg.randint(3, 10, (50,)).tolist())
    assert tg.randint(10, (2, 3), dtype=tg.float32).dtype == np.float32
    assert set(tg.randint(0, 2, (100,), dtype=tg.bool_).tolist()) == {False, True}


def test_randint_errors_as_pytorch():
    with pytest.raises(TypeError, match="'size' must be tuple of ints, not int"):
        tg.randint(10, 3)
    with pytest.raises(TypeError, match="needs high and size"):
        tg.randint(10)
    with pytest.raises(RuntimeError, match="from=5 >= to=5"):
        tg.randint(5, 5, (3,))
    with pytest.raises(TypeError, match="'high' must be int, not float"):
        tg.randint(10.5, (3,))
    with pytest.raises(RuntimeError, match="out of bounds for uint8"):
        tg.randint(0, 300, (2,), dtype=tg.uint8)
    with pytest.raises(RuntimeError, match="out of bounds for bool"):
        tg.randint(0, 3, (2,), dtype=tg.bool_)
    with pytest.raises(TypeError, match="multiple values for argument 'high'"):
        tg.randint(2, 10, (3,), high=4)


# ---- multinomial -------------------------------------------------------------------------------
def test_multinomial_shapes_and_laws():
    p = tg.tensor([0.1, 0.2, 0.7])
    g = tg.Generator().manual_seed(0)
    assert tg.multinomial(p, 2, generator=g).shape == (2,)
    rows = tg.multinomial(tg.stack([p, p]), 3, generator=g)
    assert rows.shape == (2, 3) and rows.dtype == np.int64
    assert all(sorted(r) == [0, 1, 2] for r in rows.tolist())  # without replacement: all distinct
    draws = tg.multinomial(p * 10, 30000, replacement=True, generator=g).numpy()  # unnormalised
    np.testing.assert_allclose(np.bincount(draws, minlength=3) / 30000, [0.1, 0.2, 0.7], atol=0.01)
    firsts = [tg.multinomial(p, 3, generator=g)[0].item() for _ in range(3000)]
    np.testing.assert_allclose(np.bincount(firsts, minlength=3) / 3000, [0.1, 0.2, 0.7], atol=0.03)
    one_hot = tg.tensor([0.0, 1.0, 0.0])
    assert set(tg.multinomial(one_hot, 50, True, generator=g).tolist()) == {1}
    # without replacement, once the weighted categories are used up the others follow (PyTorch)
    assert tg.multinomial(one_hot, 2, generator=g).tolist()[0] == 1
    weights = tg.tensor([[0.0, 5.0, 0.0, 1.0], [1.0, 0.0, 0.0, 0.0]])
    drawn = tg.multinomial(weights, 100, True, generator=g).numpy()
    assert set(drawn[0]) <= {1, 3} and set(drawn[1]) == {0}


@pytest.mark.parametrize(
    "args",
    [
        ("3d", 2, False),
        ("p", 4, False),
        ("negative", 1, False),
        ("zeros", 1, False),
        ("nan", 1, False),
        ("inf", 1, True),
        ("p", 0, False),
        ("p", -1, True),
        ("ints", 1, False),
        ("empty", 1, False),
        ("scalar", 1, False),
    ],
)
def test_multinomial_errors_as_pytorch(args):
    torch = pytest.importorskip("torch", reason="the comparison with torch's errors needs it")
    inputs = {
        "3d": [[[0.5, 0.5]]],
        "p": [0.1, 0.2, 0.7],
        "negative": [0.1, -0.2],
        "zeros": [0.0, 0.0],
        "nan": [1.0, float("nan")],
        "inf": [1.0, float("inf")],
        "ints": [1, 2],
        "empty": np.zeros(0, np.float32),
        "scalar": 1.0,
    }
    name, n, replacement = args
    with pytest.raises(Exception) as theirs:
        torch.multinomial(torch.tensor(inputs[name]), n, replacement)
    with pytest.raises(Exception) as ours:
        tg.multinomial(tg.tensor(inputs[name]), n, replacement)
    assert type(ours.value) is type(theirs.value)
    assert str(theirs.value)[:25] in str(ours.value)


# ---- bernoulli and normal ------------------------------------------------------------------------
def test_bernoulli():
    g = tg.Generator().manual_seed(1)
    p = tg.tensor([0.0, 1.0, 0.5], dtype=tg.float64)
    b = tg.bernoulli(p, generator=g)
    assert b.dtype == np.float64 and b.tolist()[:2] == [0.0, 1.0]
    assert tg.bernoulli(tg.zeros(4), 1.0).tolist() == [1.0] * 4  # p= overrides the tensor
    mean = tg.bernoulli(tg.full((20000,), 0.3), generator=g).numpy().mean()
    assert abs(mean - 0.3) < 0.015
    w = tg.tensor([0.2, 0.8], requires_grad=True)
    out = tg.bernoulli(w, generator=g)
    assert out.grad_fn is not None and "BernoulliBackward" in out.grad_fn.name
    out.sum().backward()
    assert w.grad.tolist() == [0.0, 0.0]  # as PyTorch: a sample has zero gradient
    with pytest.raises(RuntimeError, match=r"\[0, 1\]"):
        tg.bernoulli(tg.tensor([1.5]))
    with pytest.raises(TypeError, match="floating-point"):
        tg.bernoulli(tg.tensor([1, 0]))


def test_bernoulli_and_normal_gradients_match_torch():
    torch = pytest.importorskip("torch", reason="the comparison with torch needs it")
    for ours_fn, theirs_fn in (
        (lambda p: tg.bernoulli(p), lambda p: torch.bernoulli(p)),
        (lambda p: tg.normal(p, 1.0), lambda p: torch.normal(p, 1.0)),
    ):
        p = tg.tensor([0.3, 0.6], requires_grad=True)
        q = torch.tensor([0.3, 0.6], requires_grad=True)
        ours_fn(p).sum().backward()
        theirs_fn(q).sum().backward()
        assert p.grad.tolist() == q.grad.tolist()


def test_like_samplers_keep_the_input_dtype():
    x = tg.ones(2, 3, dtype=tg.float64)
    assert tg.rand_like(x).dtype == np.float64 and tg.randn_like(x).shape == (2, 3)
    assert tg.randint_like(x, 5).dtype == np.float64
    assert tg.randint_like(tg.ones(3, dtype=tg.int32), 2, 5).dtype == np.int32
    assert set(tg.randint_like(tg.ones(200, dtype=tg.int64), 2, 5).tolist()) == {2, 3, 4}
    with pytest.raises(TypeError, match="float dtype"):
        tg.rand_like(tg.ones(2, dtype=tg.int32))


@pytest.mark.parametrize(
    "name",
    [
        "uniform_",
        "normal_",
        "xavier_uniform_",
        "xavier_normal_",
        "kaiming_uniform_",
        "kaiming_normal_",
        "trunc_normal_",
        "orthogonal_",
    ],
)
def test_init_functions_take_a_generator(name):
    fill = getattr(tg.nn.init, name)
    tg.manual_seed(0)
    before = tg.rand(3).tolist()
    tg.manual_seed(0)
    a = fill(tg.zeros(3, 4), generator=tg.Generator().manual_seed(1)).tolist()
    assert tg.rand(3).tolist() == before  # the default stream untouched
    assert fill(tg.zeros(3, 4), generator=tg.Generator().manual_seed(1)).tolist() == a
    assert fill(tg.zeros(3, 4), generator=tg.Generator().manual_seed(2)).tolist() != a
    torch = pytest.importorskip("torch", reason="the signature check needs torch")
    assert "generator" in inspect.signature(getattr(torch.nn.init, name)).parameters


# ---- PyTorch's other in-place samplers ----------------------------------------------------------
def test_in_place_samplers_fill_in_their_ranges_reproducibly() -> None:
    draws = {
        "exponential_": (lambda t: t.exponential_(2.0), lambda v: (v >= 0).all()),
        "cauchy_": (lambda t: t.cauchy_(1.0, 0.5), lambda v: np.isfinite(v).all()),
        "log_normal_": (lambda t: t.log_normal_(0.0, 0.5), lambda v: (v > 0).all()),
        "geometric_": (
            lambda t: t.geometric_(0.3),
            lambda v: (v >= 1).all() and (v == v.round()).all(),
        ),
        "bernoulli_": (lambda t: t.bernoulli_(0.25), lambda v: set(np.unique(v)) <= {0.0, 1.0}),
        "random_": (lambda t: t.random_(3, 7), lambda v: ((v >= 3) & (v < 7)).all()),
    }
    for name, (fill, holds) in draws.items():
        tg.manual_seed(3)
        x = tg.zeros(2000, dtype=tg.float64)
        assert fill(x) is x and holds(x.numpy()), name
        tg.manual_seed(3)
        assert fill(tg.zeros(2000, dtype=tg.float64)).tolist() == x.tolist(), name
    mean = tg.zeros(20000, dtype=tg.float64).exponential_(4.0).mean().item()
    assert abs(mean - 0.25) < 0.02
    ones = tg.zeros(3).bernoulli_(tg.tensor([0.0, 1.0, 1.0]))
    assert ones.tolist() == [0.0, 1.0, 1.0]


def test_random_without_bounds_and_on_integers_as_pytorch() -> None:
    ints = tg.zeros(1000, dtype=tg.int64).random_()
    assert ints.dtype == np.int64 and ints.min().item() >= 0 and ints.max().item() > 2**40
    small = tg.zeros(1000).random_()
    assert small.max().item() <= 2**24 and small.min().item() >= 0
    assert set(np.unique(tg.zeros(200).random_(2).numpy())) == {0.0, 1.0}
    assert tg.zeros(3, dtype=tg.int64).geometric_(0.5).dtype == np.int64
    for call, message in [
        (lambda: tg.zeros(2, dtype=tg.int64).exponential_(), "floating-point"),
        (lambda: tg.zeros(2).exponential_(-1.0), "lambd > 0"),
        (lambda: tg.zeros(2).geometric_(1.5), r"p to be in \(0, 1\)"),
        (lambda: tg.zeros(2).bernoulli_(1.5), r"in \[0, 1\]"),
        (lambda: tg.zeros(2).random_(5, 5), "less than"),
    ]:
        with pytest.raises((TypeError, ValueError), match=message):
            call()
