"""tapegrad's random numbers are PyTorch's CPU numbers: the same seed gives the same values, bit
for bit, for every sampler, initialiser, dropout and data order. Pinned values (PyTorch's, from
its documentation, Karpathy's makemore lectures and torch 2.13 runs) check this without torch; the
rest compares with the installed torch directly."""

from __future__ import annotations

import warnings
from typing import Any, Callable

import numpy as np
import pytest

import tapegrad as tg
from tapegrad import nn
from tapegrad.mt19937 import STATE_BYTES


def _torch() -> Any:
    return pytest.importorskip("torch", reason="compares the streams with PyTorch's")


def _f32(values: list[float]) -> np.ndarray:
    return np.array(values, np.float32)


# ---- PyTorch's values, pinned ------------------------------------------------------------------


def test_makemore_generator_values() -> None:
    g = tg.Generator().manual_seed(2147483647)
    p = tg.rand(3, generator=g)
    assert np.array_equal(
        p.numpy(), _f32([0.7081288695335388, 0.3542391061782837, 0.10543233156204224])
    )
    p = p / p.sum()
    assert np.array_equal(
        p.numpy(), _f32([0.606378436088562, 0.30333879590034485, 0.0902828499674797])
    )
    drawn = tg.multinomial(p, num_samples=20, replacement=True, generator=g)
    assert drawn.tolist() == [1, 1, 2, 0, 0, 2, 1, 1, 0, 0, 0, 1, 1, 0, 0, 1, 1, 0, 0, 1]
    g = tg.Generator().manual_seed(2147483647)
    row = tg.randn((27, 27), generator=g)[0, :4]
    expected = [1.5673619508743286, -0.2372923195362091, -0.027384605258703232, -1.100779414176941]
    assert np.array_equal(row.numpy(), _f32(expected))


def test_manual_seed_zero_values() -> None:
    tg.manual_seed(0)
    assert np.array_equal(
        tg.rand(3).numpy(), _f32([0.49625658988952637, 0.7682217955589294, 0.08847743272781372])
    )
    tg.manual_seed(0)  # fewer than 16 values: the scalar Box-Muller path
    assert np.array_equal(
        tg.randn(3).numpy(), _f32([1.5409960746765137, -0.293428897857666, -2.1787893772125244])
    )
    tg.manual_seed(0)
    wide = tg.randn(3, dtype=tg.float64).numpy()
    assert wide.tolist() == [1.5409961082440433, -0.2934289057609464, -2.1787893820745574]
    tg.manual_seed(0)  # 16 or more: blocks of 16 (the last one redone)
    picked = tg.randn(20).numpy()[[0, 7, 15, 19]]
    assert np.array_equal(
        picked,
        _f32([-1.1258398294448853, 1.85300612449646, -0.843676745891571, 0.05373690277338028]),
    )
    tg.manual_seed(0)
    assert tg.randint(0, 10, (8,)).tolist() == [4, 9, 3, 0, 3, 9, 7, 3]
    tg.manual_seed(0)
    assert tg.randperm(10).tolist() == [4, 1, 7, 5, 3, 9, 0, 8, 6, 2]


def test_linear_initialisation_values() -> None:
    tg.manual_seed(42)
    layer = nn.Linear(3, 2)
    weight = [
        [0.4414065182209015, 0.47920528054237366, -0.1352572739124298],
        [0.5303604602813721, -0.1264995038509369, 0.11650390923023224],
    ]
    assert np.array_equal(layer.weight.numpy(), _f32(weight))  # type: ignore[arg-type]
    assert np.array_equal(layer.bias.numpy(), _f32([-0.28108587861061096, 0.3390677869319916]))


def test_state_layout_is_pytorchs() -> None:
    assert tg.Generator().initial_seed() == 67280421310721
    tg.manual_seed(0)
    state = tg.get_rng_state()
    assert state.dtype == np.uint8 and state.shape == (STATE_BYTES,) == (5056,)
    head = state.numpy()[:24]
    assert int.from_bytes(head[:8].tobytes(), "little") == 0  # the seed
    assert int.from_bytes(head[8:12].tobytes(), "little") == 1  # left
    assert int.from_bytes(head[12:16].tobytes(), "little") == 1  # seeded
    with pytest.raises(RuntimeError, match="size"):
        tg.set_rng_state(tg.zeros(45, dtype=tg.uint8))


def test_cached_normal_sample_travels_with_the_state() -> None:
    tg.manual_seed(3)
    tg.randn(1)  # draws a pair, keeps the second
    state = tg.get_rng_state()
    assert state.numpy()[5040] == 1  # normal_is_valid
    after = tg.randn(3).numpy()
    tg.set_rng_state(state)
    assert np.array_equal(tg.randn(3).numpy(), after)
    tg.manual_seed(3)  # reseeding forgets it
    assert tg.get_rng_state().numpy()[5040] == 0


def test_a_seed_is_read_as_pytorch_reads_it() -> None:
    tg.manual_seed(-1)
    assert tg.initial_seed() == 2**64 - 1
    low = tg.rand(4).numpy()
    tg.manual_seed(2**32 - 1)  # the twister takes the low 32 bits
    assert np.array_equal(tg.rand(4).numpy(), low)


# ---- against torch -----------------------------------------------------------------------------

DTYPES = [("float32", tg.float32), ("float64", tg.float64)]


def _same(ours: Any, theirs: Any) -> None:
    mine = np.asarray(ours.numpy() if hasattr(ours, "numpy") else ours)
    other = np.asarray(theirs.detach().numpy() if hasattr(theirs, "detach") else theirs)
    assert mine.shape == other.shape and mine.dtype == other.dtype, (mine.dtype, other.dtype)
    mismatched = np.flatnonzero(~((mine == other) | (np.isnan(mine) & np.isnan(other))).ravel())
    assert mismatched.size == 0, (
        mismatched[:5],
        mine.ravel()[mismatched[:5]],
        other.ravel()[mismatched[:5]],
    )


def _seeded(seed: int) -> Any:
    torch = _torch()
    tg.manual_seed(seed)
    torch.manual_seed(seed)
    return torch


@pytest.mark.parametrize("n", [1, 3, 15, 16, 17, 31, 100, 1000, 4099])
@pytest.mark.parametrize("name,dtype", DTYPES)
def test_rand_and_randn_as_torch(n: int, name: str, dtype: Any) -> None:
    torch = _seeded(n)
    kind = getattr(torch, name)
    _same(tg.rand(n, dtype=dtype), torch.rand(n, dtype=kind))
    _same(tg.randn(n, dtype=dtype), torch.randn(n, dtype=kind))
    _same(tg.randn(2, dtype=dtype), torch.randn(2, dtype=kind))  # (the cached sample)
    _same(tg.randn(n, 2, dtype=dtype), torch.randn(n, 2, dtype=kind))


FILLS: dict[str, tuple[Callable, Callable]] = {
    "uniform_": (lambda t: t.uniform_(-3.0, 5.5), lambda t: t.uniform_(-3.0, 5.5)),
    "normal_": (lambda t: t.normal_(2.0, 3.0), lambda t: t.normal_(2.0, 3.0)),
    "exponential_": (lambda t: t.exponential_(3.0), lambda t: t.exponential_(3.0)),
    "geometric_": (lambda t: t.geometric_(0.7), lambda t: t.geometric_(0.7)),
    "cauchy_": (lambda t: t.cauchy_(1.0, 2.0), lambda t: t.cauchy_(1.0, 2.0)),
    "log_normal_": (lambda t: t.log_normal_(1.0, 0.5), lambda t: t.log_normal_(1.0, 0.5)),
    "bernoulli_": (lambda t: t.bernoulli_(0.3), lambda t: t.bernoulli_(0.3)),
    "random_": (lambda t: t.random_(), lambda t: t.random_()),
    "random_(3, 9)": (lambda t: t.random_(3, 9), lambda t: t.random_(3, 9)),
}


@pytest.mark.parametrize("n", [7, 200])
@pytest.mark.parametrize("fill", list(FILLS))
@pytest.mark.parametrize("name,dtype", DTYPES)
def test_in_place_samplers_as_torch(fill: str, name: str, dtype: Any, n: int) -> None:
    torch = _seeded(5)
    ours, theirs = FILLS[fill]
    _same(ours(tg.empty(n, dtype=dtype)), theirs(torch.empty(n, dtype=getattr(torch, name))))
    _same(tg.rand(3), torch.rand(3))  # and the streams stay in step


@pytest.mark.parametrize("name", ["int64", "int32", "int16", "uint8", "bool"])
def test_random_full_range_of_integer_dtypes(name: str) -> None:
    torch = _seeded(10)
    kind = tg.bool_ if name == "bool" else getattr(tg, name)
    _same(tg.empty(50, dtype=kind).random_(), torch.empty(50, dtype=getattr(torch, name)).random_())


def test_integers_and_permutations_as_torch() -> None:
    torch = _seeded(11)
    _same(tg.randint(0, 10, (100,)), torch.randint(0, 10, (100,)))
    _same(tg.randint(-(2**40), 2**40, (50,)), torch.randint(-(2**40), 2**40, (50,)))
    _same(tg.randint(3, 50, (10,), dtype=tg.int32), torch.randint(3, 50, (10,), dtype=torch.int32))
    _same(tg.randint_like(tg.zeros(10), 5), torch.randint_like(torch.zeros(10), 5))
    for n in (0, 1, 2, 10, 1000, 20000):
        _same(tg.randperm(n), torch.randperm(n))


@pytest.mark.parametrize("name,dtype", DTYPES)
def test_normal_overloads_and_bernoulli_as_torch(name: str, dtype: Any) -> None:
    torch = _seeded(7)
    kind = getattr(torch, name)
    mean = np.linspace(-1, 1, 40).astype(name)
    _same(tg.normal(1.0, 2.0, (40,), dtype=dtype), torch.normal(1.0, 2.0, (40,), dtype=kind))
    _same(tg.normal(tg.tensor(mean), 2.0), torch.normal(torch.tensor(mean), 2.0))
    _same(
        tg.normal(tg.tensor(mean), tg.tensor(mean + 2)),
        torch.normal(torch.tensor(mean), torch.tensor(mean + 2)),
    )
    p = (mean + 1) / 2
    _same(tg.bernoulli(tg.tensor(p)), torch.bernoulli(torch.tensor(p)))
    _same(tg.rand_like(tg.zeros(20, dtype=dtype)), torch.rand_like(torch.zeros(20, dtype=kind)))
    _same(tg.randn_like(tg.zeros(20, dtype=dtype)), torch.randn_like(torch.zeros(20, dtype=kind)))


@pytest.mark.parametrize(
    "count,replacement", [(1, True), (1, False), (5, True), (5, False), (10, False), (50, True)]
)
@pytest.mark.parametrize("name", ["float32", "float64"])
def test_multinomial_as_torch(count: int, replacement: bool, name: str) -> None:
    torch = _seeded(9)
    weights = np.random.default_rng(0).random((3, 10)).astype(name)
    _same(
        tg.multinomial(tg.tensor(weights), count, replacement),
        torch.multinomial(torch.tensor(weights), count, replacement),
    )


def test_generators_of_their_own_as_torch() -> None:
    torch = _torch()
    ours, theirs = tg.Generator().manual_seed(123), torch.Generator().manual_seed(123)
    _same(tg.randn(40, generator=ours), torch.randn(40, generator=theirs))
    _same(tg.randperm(30, generator=ours), torch.randperm(30, generator=theirs))
    _same(tg.empty(9).uniform_(generator=ours), torch.empty(9).uniform_(generator=theirs))
    fresh = tg.Generator(), torch.Generator()  # both start from 67280421310721
    _same(tg.rand(5, generator=fresh[0]), torch.rand(5, generator=fresh[1]))


def test_states_pass_between_torch_and_tapegrad() -> None:
    torch = _seeded(13)
    tg.randn(3)
    torch.randn(3)
    _same(tg.get_rng_state(), torch.get_rng_state())
    torch.rand(1000)
    tg.set_rng_state(tg.tensor(torch.get_rng_state().numpy()))  # torch's bytes, read by tapegrad
    _same(tg.randn(5), torch.randn(5))
    torch.set_rng_state(torch.from_numpy(tg.get_rng_state().numpy()))  # and the other way
    _same(tg.rand(7), torch.rand(7))


MODULES: dict[str, Callable[[Any], Any]] = {
    "Linear": lambda m: m.Linear(5, 3),
    "Bilinear": lambda m: m.Bilinear(3, 4, 2),
    "Conv1d": lambda m: m.Conv1d(3, 4, 3),
    "Conv2d": lambda m: m.Conv2d(3, 8, 3, bias=False),
    "Conv3d": lambda m: m.Conv3d(2, 3, 2),
    "ConvTranspose2d": lambda m: m.ConvTranspose2d(3, 4, 3),
    "Embedding": lambda m: m.Embedding(27, 10),
    "EmbeddingBag": lambda m: m.EmbeddingBag(27, 10),
    "RNN": lambda m: m.RNN(4, 5, 2),
    "LSTM": lambda m: m.LSTM(4, 5, 2, bidirectional=True),
    "GRU": lambda m: m.GRU(4, 5),
    "LSTMCell": lambda m: m.LSTMCell(4, 5),
    "LayerNorm": lambda m: m.LayerNorm(5),
    "BatchNorm1d": lambda m: m.BatchNorm1d(5),
    "PReLU": lambda m: m.PReLU(),
    "MultiheadAttention": lambda m: m.MultiheadAttention(8, 2, kdim=4, vdim=6),
    "TransformerEncoderLayer": lambda m: m.TransformerEncoderLayer(8, 2, 16),
    "Transformer": lambda m: m.Transformer(8, 2, 1, 1, 16),
    "MLP": lambda m: m.Sequential(m.Linear(4, 8), m.ReLU(), m.Linear(8, 2)),
}


@pytest.mark.parametrize("name", list(MODULES))
def test_default_initialisation_as_torch(name: str) -> None:
    torch = _seeded(3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ours, theirs = MODULES[name](nn).state_dict(), MODULES[name](torch.nn).state_dict()
    assert list(ours) == list(theirs)
    for key in theirs:
        _same(ours[key], theirs[key])
    _same(tg.rand(4), torch.rand(4))


INITS = [
    "uniform_",
    "normal_",
    "xavier_uniform_",
    "xavier_normal_",
    "kaiming_uniform_",
    "kaiming_normal_",
]


@pytest.mark.parametrize("name", [*INITS, "trunc_normal_", "trunc_normal_ narrow"])
def test_init_functions_as_torch(name: str) -> None:
    torch = _seeded(1)
    args = (0.0, 1.0, 1.5, 3.0) if name.endswith("narrow") else ()  # (the rejection method)
    fn = name.split()[0]
    _same(
        getattr(nn.init, fn)(tg.empty(6, 5), *args),
        getattr(torch.nn.init, fn)(torch.empty(6, 5), *args),
    )
    _same(tg.rand(2), torch.rand(2))


def test_orthogonal_init_draws_as_torch() -> None:
    torch = _seeded(1)
    ours = nn.init.orthogonal_(tg.empty(6, 5)).numpy()
    theirs = torch.nn.init.orthogonal_(torch.empty(6, 5)).numpy()
    np.testing.assert_allclose(ours, theirs, rtol=0, atol=1e-6)  # (NumPy's QR vs torch's LAPACK)
    _same(tg.rand(2), torch.rand(2))


@pytest.mark.parametrize(
    "name",
    ["dropout", "dropout1d", "dropout2d", "dropout3d", "alpha_dropout", "feature_alpha_dropout"],
)
def test_dropout_family_as_torch(name: str) -> None:
    torch = _seeded(2)
    x = np.random.default_rng(1).random((4, 3, 5, 5)).astype(np.float32)
    x = x[..., 0] if name == "dropout1d" else x[:, :, None] if name == "dropout3d" else x
    ours = getattr(nn.functional, name)(tg.tensor(x), 0.3, True)
    _same(ours, getattr(torch.nn.functional, name)(torch.tensor(x), 0.3, True))


def test_dropout_layer_rrelu_and_gumbel_as_torch() -> None:
    torch = _seeded(2)
    x = np.random.default_rng(2).random((4, 6)).astype(np.float32) - 0.5
    _same(nn.Dropout(0.2)(tg.tensor(x)), torch.nn.Dropout(0.2)(torch.tensor(x)))
    _same(
        nn.functional.rrelu(tg.tensor(x), training=True),
        torch.nn.functional.rrelu(torch.tensor(x), training=True),
    )
    soft = nn.functional.gumbel_softmax(tg.tensor(x), tau=0.5).numpy()
    np.testing.assert_allclose(
        soft, torch.nn.functional.gumbel_softmax(torch.tensor(x), tau=0.5).numpy(), rtol=1e-5
    )
    _same(tg.rand(3), torch.rand(3))


def test_data_order_as_torch() -> None:
    torch = _seeded(4)
    from torch.utils import data as TD

    from tapegrad.utils import data as D

    _same(list(D.RandomSampler(range(50))), list(TD.RandomSampler(range(50))))
    _same(
        list(D.RandomSampler(range(50), replacement=True, num_samples=70)),
        list(TD.RandomSampler(range(50), replacement=True, num_samples=70)),
    )
    _same(
        list(D.SubsetRandomSampler(list(range(10, 30)))),
        list(TD.SubsetRandomSampler(list(range(10, 30)))),
    )
    _same(
        list(D.WeightedRandomSampler([0.1, 0.5, 0.2, 0.2], 20)),
        list(TD.WeightedRandomSampler([0.1, 0.5, 0.2, 0.2], 20)),
    )
    x = np.arange(40, dtype=np.float32).reshape(20, 2)
    ours = D.DataLoader(D.TensorDataset(tg.tensor(x)), batch_size=6, shuffle=True)
    theirs = TD.DataLoader(TD.TensorDataset(torch.tensor(x)), batch_size=6, shuffle=True)
    for _ in range(2):  # two epochs
        _same(
            np.concatenate([b[0].numpy() for b in ours]),
            np.concatenate([b[0].numpy() for b in theirs]),
        )
    for _ in D.DataLoader(list(range(10)), batch_size=3):  # (a plain pass draws a base seed too)
        pass
    for _ in TD.DataLoader(list(range(10)), batch_size=3):
        pass
    _same(tg.rand(3), torch.rand(3))
    splits = D.random_split(range(30), [0.5, 0.3, 0.2])
    _same(
        [list(s.indices) for s in splits][0],
        [list(s.indices) for s in TD.random_split(range(30), [0.5, 0.3, 0.2])][0],
    )
    ours_gen, theirs_gen = tg.Generator().manual_seed(9), torch.Generator().manual_seed(9)
    _same(
        np.concatenate(
            [
                b.numpy()
                for b in D.DataLoader(
                    list(range(20)), batch_size=4, shuffle=True, generator=ours_gen
                )
            ]
        ),
        np.concatenate(
            [
                b.numpy()
                for b in TD.DataLoader(
                    list(range(20)), batch_size=4, shuffle=True, generator=theirs_gen
                )
            ]
        ),
    )
