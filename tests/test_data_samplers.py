"""tapegrad.utils.data as PyTorch's package: its modules, the samplers, the DataLoader's sampler /
batch_sampler / generator arguments and their mutual exclusions, IterableDataset and
ConcatDataset; compared with torch.utils.data where it is installed."""

from __future__ import annotations

import importlib

import numpy as np
import pytest

import tapegrad as tg
from tapegrad.utils.data import (
    BatchSampler,
    ConcatDataset,
    DataLoader,
    IterableDataset,
    RandomSampler,
    Sampler,
    SequentialSampler,
    SubsetRandomSampler,
    TensorDataset,
    WeightedRandomSampler,
)


def dataset(n=10):
    return TensorDataset(tg.arange(float(n)), tg.arange(n))


class Stream(IterableDataset):
    def __init__(self, n=5):
        self.n = n

    def __iter__(self):
        return iter(range(self.n))


def test_modules_as_pytorch_names_them():
    from tapegrad.utils.data.dataloader import DataLoader as FromModule

    assert FromModule is DataLoader
    names = {
        "dataloader": ["DataLoader", "get_worker_info"],
        "dataset": ["Dataset", "IterableDataset", "TensorDataset", "Subset", "ConcatDataset"],
        "sampler": ["Sampler", "SequentialSampler", "RandomSampler", "BatchSampler"],
    }
    for module, members in names.items():
        loaded = importlib.import_module(f"tapegrad.utils.data.{module}")
        for member in members:
            assert getattr(loaded, member) is getattr(tg.utils.data, member)
    assert tg.utils.data.get_worker_info() is None


def test_samplers():
    assert list(SequentialSampler(range(4))) == [0, 1, 2, 3]
    assert list(BatchSampler(range(5), 2, False)) == [[0, 1], [2, 3], [4]]
    assert list(BatchSampler(range(5), 2, True)) == [[0, 1], [2, 3]]
    assert len(BatchSampler(range(5), 2, False)) == 3 and len(BatchSampler(range(5), 2, True)) == 2
    tg.manual_seed(0)
    once = list(RandomSampler(range(10)))
    assert sorted(once) == list(range(10)) and once != list(range(10))
    long = list(RandomSampler(range(10), num_samples=25))
    assert len(long) == 25 and long.count(0) in (2, 3)  # two whole passes, then part of one
    assert sorted(long[:10]) == sorted(long[10:20]) == list(range(10))
    assert len(set(long[20:])) == 5
    drawn = list(RandomSampler(range(3), replacement=True, num_samples=300))
    assert len(drawn) == 300 and set(drawn) == {0, 1, 2}
    assert sorted(SubsetRandomSampler([5, 7, 9])) == [5, 7, 9]
    weighted = list(WeightedRandomSampler([0.0, 1.0, 3.0], 400))
    assert set(weighted) == {1, 2} and 0.65 < weighted.count(2) / 400 < 0.85
    with pytest.raises(NotImplementedError):
        iter(Sampler())


def test_random_samplers_are_reproducible():
    g1, g2 = tg.Generator().manual_seed(3), tg.Generator().manual_seed(3)
    assert list(RandomSampler(range(20), generator=g1)) == list(
        RandomSampler(range(20), generator=g2)
    )
    tg.manual_seed(4)
    a = [list(RandomSampler(range(20))), list(SubsetRandomSampler(range(20)))]
    tg.manual_seed(4)
    b = [list(RandomSampler(range(20))), list(SubsetRandomSampler(range(20)))]
    assert a == b
    sampler = RandomSampler(range(20))
    assert list(sampler) != list(sampler)  # every pass a new order


def test_sampler_errors_as_pytorch():
    with pytest.raises(TypeError, match="replacement should be a boolean value, but got"):
        RandomSampler(range(3), replacement="x")
    with pytest.raises(ValueError, match="positive integer value, but got num_samples=0"):
        RandomSampler(range(3), replacement=True, num_samples=0)
    with pytest.raises(ValueError, match="num_samples=0"):
        RandomSampler([])
    with pytest.raises(ValueError, match="but got batch_size=0"):
        BatchSampler(range(3), 0, False)
    with pytest.raises(ValueError, match="drop_last should be a boolean value"):
        BatchSampler(range(3), 2, "no")
    with pytest.raises(ValueError, match="weights should be a 1d sequence"):
        WeightedRandomSampler([[1.0]], 2)


def test_loader_with_a_sampler_a_list_or_a_batch_sampler():
    ds = dataset()
    loader = DataLoader(ds, sampler=[3, 1, 2], batch_size=2)
    assert [b[1].tolist() for b in loader] == [[3, 1], [2]] and len(loader) == 2
    loader = DataLoader(ds, batch_sampler=[[1, 2], [9]])
    assert [b[1].tolist() for b in loader] == [[1, 2], [9]] and loader.batch_size is None
    tg.manual_seed(0)
    loader = DataLoader(ds, sampler=RandomSampler(ds, replacement=True, num_samples=7))
    assert len(loader) == 7 and all(b[0].shape == (1,) for b in loader)
    assert [s[1].item() for s in DataLoader(ds, batch_size=None, sampler=[4, 2])] == [4, 2]
    plain = DataLoader(ds, batch_size=3)
    assert type(plain.sampler) is SequentialSampler and type(plain.batch_sampler) is BatchSampler
    shuffled = DataLoader(ds, batch_size=3, shuffle=True, generator=tg.Generator().manual_seed(1))
    again = DataLoader(ds, batch_size=3, shuffle=True, generator=tg.Generator().manual_seed(1))
    assert type(shuffled.sampler) is RandomSampler
    assert [b[1].tolist() for b in shuffled] == [b[1].tolist() for b in again]
    assert (
        DataLoader(ds, num_workers=2, persistent_workers=True, prefetch_factor=2).num_workers == 2
    )


def test_loader_mutual_exclusions_as_pytorch():
    ds = dataset()
    cases = [
        (dict(shuffle=True, sampler=[1]), "sampler option is mutually exclusive with shuffle"),
        (dict(batch_sampler=[[1]], batch_size=2), "batch_sampler option is mutually exclusive"),
        (dict(batch_sampler=[[1]], shuffle=True), "batch_sampler option is mutually exclusive"),
        (dict(batch_sampler=[[1]], sampler=[1]), "batch_sampler option is mutually exclusive"),
        (dict(batch_sampler=[[1]], drop_last=True), "batch_sampler option is mutually exclusive"),
        (dict(batch_size=None, drop_last=True), "mutually exclusive with drop_last"),
        (dict(num_workers=-1), "num_workers option should be non-negative"),
        (dict(timeout=-1), "timeout option should be non-negative"),
        (dict(prefetch_factor=2), "prefetch_factor option could only be specified"),
        (dict(persistent_workers=True), "persistent_workers option needs num_workers > 0"),
        (dict(batch_size=-1), "but got batch_size=-1"),
    ]
    for keywords, message in cases:
        with pytest.raises(ValueError, match=message):
            DataLoader(ds, **keywords)
    with pytest.warns(UserWarning, match="pin_memory"):
        DataLoader(ds, pin_memory=True)


def test_iterable_dataset():
    assert [b.tolist() for b in DataLoader(Stream(), batch_size=2)] == [[0, 1], [2, 3], [4]]
    assert [b.tolist() for b in DataLoader(Stream(), batch_size=2, drop_last=True)] == [
        [0, 1],
        [2, 3],
    ]
    assert list(DataLoader(Stream(3), batch_size=None)) == [0, 1, 2]
    for keywords in (dict(shuffle=True), dict(sampler=[1]), dict(batch_sampler=[[1]])):
        with pytest.raises(ValueError, match="DataLoader with IterableDataset: expected unspec"):
            DataLoader(Stream(), **keywords)
    with pytest.raises(TypeError):
        len(DataLoader(Stream(), batch_size=2))  # (a stream without __len__)


def test_concat_dataset():
    a, b = dataset(3), dataset(4)
    both = ConcatDataset([a, b])
    assert len(both) == 7 and both.cumulative_sizes == [3, 7]
    assert both[3][1].item() == 0 and both[-1][1].item() == 3 and both[2][1].item() == 2
    assert type(a + b) is ConcatDataset and len(a + b + a) == 10
    with pytest.raises(ValueError, match="absolute value of index should not exceed"):
        both[-8]
    with pytest.raises(ValueError, match="should not be an empty iterable"):
        ConcatDataset([])
    with pytest.raises(TypeError, match="does not support IterableDataset"):
        ConcatDataset([a, Stream()])
    batches = list(DataLoader(both, batch_size=4))
    assert [x.tolist() for x, _ in batches] == [[0.0, 1.0, 2.0, 0.0], [1.0, 2.0, 3.0]]


# ---- against torch.utils.data ------------------------------------------------------------------
def test_loader_batches_and_errors_match_torch():
    torch = pytest.importorskip("torch", reason="the comparison with torch needs it")
    tdata = torch.utils.data
    ours_ds, theirs_ds = dataset(11), tdata.TensorDataset(torch.arange(11.0), torch.arange(11))
    for keywords in (
        dict(batch_size=3),
        dict(batch_size=3, drop_last=True),
        dict(sampler=[4, 1, 7, 7], batch_size=3),
        dict(batch_sampler=[[1, 2], [0], [10, 9, 8]]),
        dict(batch_size=None, sampler=[2, 3]),
    ):
        ours = [[t.tolist() for t in b] for b in DataLoader(ours_ds, **keywords)]
        theirs = [[t.tolist() for t in b] for b in tdata.DataLoader(theirs_ds, **keywords)]
        assert ours == theirs, keywords
        assert len(DataLoader(ours_ds, **keywords)) == len(tdata.DataLoader(theirs_ds, **keywords))
    for keywords in (
        dict(shuffle=True, sampler=[1]),
        dict(batch_sampler=[[1]], batch_size=2),
        dict(batch_size=None, drop_last=True),
        dict(batch_size=0),
        dict(num_workers=-1),
        dict(persistent_workers=True),
    ):
        with pytest.raises(ValueError) as theirs_error:
            tdata.DataLoader(theirs_ds, **keywords)
        with pytest.raises(ValueError) as ours_error:
            DataLoader(ours_ds, **keywords)
        assert str(theirs_error.value)[:40] in str(ours_error.value), keywords
    assert list(BatchSampler(range(7), 3, False)) == list(tdata.BatchSampler(range(7), 3, False))
    assert len(RandomSampler(range(4), num_samples=9)) == len(
        tdata.RandomSampler(range(4), num_samples=9)
    )
    concat = tdata.ConcatDataset([theirs_ds, theirs_ds])
    ours_concat = ConcatDataset([ours_ds, ours_ds])
    for i in (0, 10, 11, 21, -1, -22):
        assert ours_concat[i][1].item() == concat[i][1].item()
    stream = [b.tolist() for b in DataLoader(Stream(7), batch_size=3)]

    class TorchStream(tdata.IterableDataset):
        def __iter__(self):
            return iter(range(7))

    assert stream == [b.tolist() for b in tdata.DataLoader(TorchStream(), batch_size=3)]


def test_numpy_generators_are_still_accepted():
    ds = dataset()
    own = DataLoader(ds, batch_size=3, shuffle=True, generator=np.random.default_rng(1))
    again = DataLoader(ds, batch_size=3, shuffle=True, generator=np.random.default_rng(1))
    assert [b[1].tolist() for b in own] == [b[1].tolist() for b in again]


def test_endless_sampling_draws_as_it_goes():
    """minGPT's trainer asks for 10**10 samples with replacement and reads a few batches."""
    sampler = RandomSampler(range(5), replacement=True, num_samples=10**10)
    drawn = iter(sampler)
    assert len(sampler) == 10**10 and {next(drawn) for _ in range(100)} <= set(range(5))
