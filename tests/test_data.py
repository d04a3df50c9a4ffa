"""tg.utils.data: datasets, the DataLoader (batching, shuffling under tg.manual_seed, collate),
random_split, and their errors; the default collate compared with PyTorch's when installed."""

from __future__ import annotations

from collections import OrderedDict, namedtuple

import numpy as np
import pytest

import tapegrad as tg
from tapegrad.utils.data import (
    DataLoader,
    Dataset,
    Subset,
    TensorDataset,
    default_collate,
    random_split,
)


def dataset(n=10):
    x = tg.tensor(np.arange(n * 2, dtype=np.float32).reshape(n, 2))
    y = tg.tensor(np.arange(n) % 3)
    return TensorDataset(x, y)


class Squares(Dataset):
    """A plain map-style dataset returning (NumPy array, Python int) samples."""

    def __len__(self):
        return 7

    def __getitem__(self, i):
        return np.array([i, i * i], dtype=np.float64), i


# ---- datasets ----------------------------------------------------------------------------------
def test_tensor_dataset_rows_and_subset():
    ds = dataset()
    assert len(ds) == 10
    x, y = ds[3]
    assert x.tolist() == [6.0, 7.0] and y.item() == 0
    sub = Subset(ds, [9, 0, 4])
    assert len(sub) == 3 and sub[0][0].tolist() == [18.0, 19.0] and sub[2][1].item() == 1
    assert [s[0].tolist() for s in [sub[1]]] == [[0.0, 1.0]]


def test_tensor_dataset_errors():
    with pytest.raises(ValueError, match=r"Size mismatch.*\[3, 4\]"):
        TensorDataset(tg.ones(3, 2), tg.ones(4))
    with pytest.raises(ValueError, match="at least one tensor"):
        TensorDataset()
    with pytest.raises(TypeError, match="argument 1 is a ndarray"):
        TensorDataset(tg.ones(3), np.ones(3))
    with pytest.raises(ValueError, match="0-d"):
        TensorDataset(tg.tensor(1.0))
    with pytest.raises(NotImplementedError, match="__getitem__"):
        Dataset()[0]


# ---- DataLoader --------------------------------------------------------------------------------
def test_batches_in_order_with_and_without_drop_last():
    ds = dataset(10)
    loader = DataLoader(ds, batch_size=4)
    batches = list(loader)
    assert len(loader) == len(batches) == 3
    assert [b[0].shape for b in batches] == [(4, 2), (4, 2), (2, 2)]
    assert isinstance(batches[0], list)  # a tuple sample collates to a list, as in PyTorch
    assert np.array_equal(np.concatenate([b[0].numpy() for b in batches]), ds.tensors[0].numpy())
    assert batches[0][1].dtype == ds.tensors[1].dtype
    dropped = DataLoader(ds, batch_size=4, drop_last=True)
    assert len(dropped) == 2 and [b[0].shape[0] for b in dropped] == [4, 4]
    assert len(DataLoader(ds)) == 10  # batch_size=1 by default


def test_shuffle_covers_everything_and_is_reproducible_under_manual_seed():
    ds = dataset(10)
    loader = DataLoader(ds, batch_size=3, shuffle=True)

    def epoch():
        return np.concatenate([x.numpy()[:, 0] for x, _ in loader]).tolist()

    tg.manual_seed(7)
    first, second = epoch(), epoch()
    assert sorted(first) == sorted(second) == list(range(0, 20, 2))
    assert first != second  # a new order every pass (10! orders: equal by chance ~never)
    tg.manual_seed(7)
    assert epoch() == first and epoch() == second
    own = DataLoader(ds, batch_size=3, shuffle=True, generator=np.random.default_rng(1))
    again = DataLoader(ds, batch_size=3, shuffle=True, generator=np.random.default_rng(1))
    assert [x.tolist() for x, _ in own] == [x.tolist() for x, _ in again]


def test_the_fast_path_equals_collating_samples_one_by_one():
    ds = dataset(10)
    tg.manual_seed(3)
    train, _ = random_split(ds, [7, 3])
    indices = [0, 5, 2]
    direct = default_collate([train[i] for i in indices])
    loader = DataLoader(train, batch_size=3, collate_fn=lambda b: default_collate(b))
    slow = next(iter(loader))
    fast = next(iter(DataLoader(train, batch_size=3)))
    for a, b in zip(slow, fast):
        assert a.dtype == b.dtype and np.array_equal(a.numpy(), b.numpy())
    assert np.array_equal(direct[0].numpy(), np.stack([train[i][0].numpy() for i in indices]))


def test_generic_dataset_collate_and_restartable_iteration():
    loader = DataLoader(Squares(), batch_size=3)
    x, i = next(iter(loader))
    assert x.dtype == np.float64 and x.tolist() == [[0, 0], [1, 1], [2, 4]]
    assert i.dtype == np.int64 and i.tolist() == [0, 1, 2]
    assert len(list(loader)) == len(list(loader)) == 3
    words = DataLoader(["a", "b", "c"], batch_size=2, collate_fn=lambda b: "".join(b))
    assert list(words) == ["ab", "c"]


def test_batch_size_none_yields_converted_samples():
    loader = DataLoader(Squares(), batch_size=None)
    samples = list(loader)
    assert len(loader) == len(samples) == 7
    x, i = samples[3]
    assert isinstance(x, tg.Tensor) and x.tolist() == [3.0, 9.0] and i == 3
    assert list(DataLoader([1, 2], batch_size=None)) == [1, 2]


def test_default_collate_structures():
    Point = namedtuple("Point", "x y")
    out = default_collate([{"a": 1.5, "b": Point(1, True)}, {"a": 2.5, "b": Point(2, False)}])
    assert out["a"].dtype == np.float64 and out["a"].tolist() == [1.5, 2.5]
    assert isinstance(out["b"], Point) and out["b"].x.dtype == np.int64
    assert out["b"].y.dtype == np.bool_ and out["b"].y.tolist() == [True, False]
    od = default_collate([OrderedDict(z=np.float32(1)), OrderedDict(z=np.float32(2))])
    assert isinstance(od, OrderedDict) and od["z"].dtype == np.float32
    assert default_collate([[1, 2], [3, 4]])[1].tolist() == [2, 4]
    assert default_collate(["s", "t"]) == ["s", "t"]
    grads = default_collate([tg.ones(2, requires_grad=True), tg.zeros(2)])
    assert grads.requires_grad and grads.shape == (2, 2)  # still on the tape


def test_default_collate_errors():
    with pytest.raises(RuntimeError, match="different shapes"):
        default_collate([tg.ones(2), tg.ones(3)])
    with pytest.raises(RuntimeError, match="equal size"):
        default_collate([[1, 2], [3]])
    with pytest.raises(TypeError, match="found object"):
        default_collate([object()])
    with pytest.raises(TypeError, match="dtype <U1"):
        default_collate([np.array(["a"]), np.array(["b"])])


def test_loader_errors():
    ds = dataset()
    with pytest.raises(ValueError, match="positive integer value, but got batch_size=0"):
        DataLoader(ds, batch_size=0)  # (PyTorch's errors, from its BatchSampler)
    with pytest.raises(ValueError, match="positive integer value, but got batch_size=2.0"):
        DataLoader(ds, batch_size=2.0)
    with pytest.raises(ValueError, match="mutually exclusive with drop_last"):
        DataLoader(ds, batch_size=None, drop_last=True)
    with pytest.raises(TypeError, match="__getitem__ and __len__"):
        DataLoader(5)
    with pytest.raises(TypeError, match="collate_fn must be a function"):
        DataLoader(ds, collate_fn="stack")
    with pytest.raises(TypeError, match=r"generator must be a tg.Generator"):
        DataLoader(ds, shuffle=True, generator=42)


# ---- random_split ------------------------------------------------------------------------------
def test_random_split_partitions_and_is_seeded():
    ds = dataset(10)
    tg.manual_seed(0)
    a, b = random_split(ds, [7, 3])
    assert (len(a), len(b)) == (7, 3) and sorted(a.indices + b.indices) == list(range(10))
    tg.manual_seed(0)
    assert random_split(ds, [7, 3])[0].indices == a.indices
    fractions = random_split(range(10), [0.33, 0.33, 0.34])  # remainder to the first ones
    assert [len(s) for s in fractions] == [4, 3, 3]
    assert [len(s) for s in random_split(range(11), [0.5, 0.5])] == [6, 5]
    with pytest.warns(UserWarning, match="Length of split at index 1 is 0"):
        random_split(range(3), [0.9, 0.1])


def test_random_split_errors():
    with pytest.raises(ValueError, match="add up to 9, the dataset has 10"):
        random_split(range(10), [5, 4])
    with pytest.raises(ValueError, match="Fraction at index 0 is not between 0 and 1"):
        random_split(range(10), [1.5, -0.5])
    with pytest.raises(TypeError, match="a length must be an int"):
        random_split(range(10), [5.5, 4.5])
    with pytest.raises(ValueError, match="at least one length"):
        random_split(range(10), [])


# ---- against torch.utils.data ------------------------------------------------------------------
def test_default_collate_matches_torch():
    torch = pytest.importorskip("torch", reason="the comparison with torch's collate needs it")
    from torch.utils.data import default_collate as torch_collate

    batch = [
        {"x": np.ones((2, 2), np.float32) * i, "n": i, "f": i / 2, "b": i > 0, "s": np.int16(i)}
        for i in range(3)
    ]
    ours, theirs = default_collate(batch), torch_collate(batch)
    assert list(ours) == list(theirs)
    for key in ours:
        assert str(ours[key].dtype) == str(theirs[key].dtype).replace("torch.", "")
        assert np.array_equal(ours[key].numpy(), theirs[key].numpy())
    assert len(DataLoader(range(10), batch_size=3, drop_last=True)) == len(
        torch.utils.data.DataLoader(range(10), batch_size=3, drop_last=True)
    )
