"""tg.nn.utils.rnn: PackedSequence, pad_sequence, pack_padded_sequence, pad_packed_sequence,
pack_sequence, unpack_sequence, unpad_sequence, invert_permutation. Values, dtypes and structure
equal PyTorch's; gradients through padding, packing and unpacking checked by finite differences
and against PyTorch; PyTorch's errors (type and message)."""

from __future__ import annotations

import numpy as np
import pytest

import tapegrad as tg
from helpers import check_grads, rand

rnn = tg.nn.utils.rnn


def _np(t):
    return None if t is None else np.asarray(t.detach().numpy() if hasattr(t, "detach") else t)


def _same_packed(ours, theirs) -> None:
    assert isinstance(ours, rnn.PackedSequence) and isinstance(ours, tuple)
    assert ours._fields == theirs._fields
    for a, b in zip(ours, theirs):
        if b is None:
            assert a is None
        else:
            assert str(a.dtype) == str(b.dtype).replace("torch.", "")
            np.testing.assert_allclose(a.numpy(), _np(b), rtol=1e-12)


def _seqs(lengths, trailing=(2,), seed=0):
    return [rand(n, *trailing, seed=seed + i) for i, n in enumerate(lengths)]


def test_pack_sequence_example():
    p = rnn.pack_sequence([tg.tensor([1, 2, 3]), tg.tensor([4, 5]), tg.tensor([6])])
    assert p.data.tolist() == [1, 4, 6, 2, 5, 3] and p.batch_sizes.tolist() == [3, 2, 1]
    assert p.batch_sizes.dtype == np.int64 and p.sorted_indices is None
    assert p.unsorted_indices is None and p[0] is p.data and len(p) == 4
    padded, lengths = rnn.pad_packed_sequence(p, batch_first=True)
    assert padded.tolist() == [[1, 2, 3], [4, 5, 0], [6, 0, 0]]
    assert lengths.tolist() == [3, 2, 1] and lengths.dtype == np.int64


@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("lengths", [[4, 2, 4, 1], [1, 3], [5], [2, 2, 2]])
@pytest.mark.parametrize("trailing", [(), (3,), (2, 2)])
def test_pack_and_pad_match_torch(batch_first, lengths, trailing):
    torch = pytest.importorskip("torch")
    seqs = _seqs(lengths, trailing)
    for enforce_sorted in (False, True):
        if enforce_sorted and lengths != sorted(lengths, reverse=True):
            continue
        ours = rnn.pad_sequence([tg.tensor(s) for s in seqs], batch_first, 0.5)
        theirs = torch.nn.utils.rnn.pad_sequence([torch.tensor(s) for s in seqs], batch_first, 0.5)
        np.testing.assert_array_equal(ours.numpy(), theirs.numpy())
        for lens in (lengths, tg.tensor(lengths)):
            po = rnn.pack_padded_sequence(ours, lens, batch_first, enforce_sorted)
            pt = torch.nn.utils.rnn.pack_padded_sequence(
                theirs, lengths, batch_first, enforce_sorted
            )
            _same_packed(po, pt)
        _same_packed(
            rnn.pack_sequence([tg.tensor(s) for s in seqs], enforce_sorted),
            torch.nn.utils.rnn.pack_sequence([torch.tensor(s) for s in seqs], enforce_sorted),
        )
        for total in (None, max(lengths) + 2):
            a, la = rnn.pad_packed_sequence(po, batch_first, -1.0, total)
            b, lb = torch.nn.utils.rnn.pad_packed_sequence(pt, batch_first, -1.0, total)
            np.testing.assert_array_equal(a.numpy(), b.numpy())
            np.testing.assert_array_equal(la.numpy(), lb.numpy())
            assert la.dtype == np.int64
        for x, y in zip(rnn.unpack_sequence(po), torch.nn.utils.rnn.unpack_sequence(pt)):
            np.testing.assert_array_equal(x.numpy(), y.numpy())


def test_pad_sequence_options_match_torch():
    torch = pytest.importorskip("torch")
    seqs = [np.arange(3), np.arange(5), np.arange(1)]
    for batch_first in (False, True):
        for side in ("left", "right"):
            ours = rnn.pad_sequence([tg.tensor(s) for s in seqs], batch_first, 7, side)
            theirs = torch.nn.utils.rnn.pad_sequence(
                [torch.tensor(s) for s in seqs], batch_first, 7, side
            )
            np.testing.assert_array_equal(ours.numpy(), theirs.numpy())
            assert ours.dtype == np.int64
    # the first sequence's dtype (a float padding value cast to it, as PyTorch's)
    assert rnn.pad_sequence([tg.ones(2, dtype=tg.int64), tg.ones(3)], padding_value=1.5).dtype == (
        np.int64
    )
    mixed = rnn.pad_sequence([tg.ones(2, dtype=tg.float32), tg.ones(3, dtype=tg.float64)])
    assert mixed.dtype == np.float32
    stacked = rnn.pad_sequence(tg.ones(2, 3))  # a Tensor: its rows are the sequences
    np.testing.assert_array_equal(
        stacked.numpy(), torch.nn.utils.rnn.pad_sequence(torch.ones(2, 3)).numpy()
    )


def test_sorting_keeps_ties_in_order_as_torch():
    torch = pytest.importorskip("torch")
    lengths = [2, 3, 2, 3, 1, 3]
    seqs = _seqs(lengths)
    _same_packed(
        rnn.pack_sequence([tg.tensor(s) for s in seqs], enforce_sorted=False),
        torch.nn.utils.rnn.pack_sequence([torch.tensor(s) for s in seqs], enforce_sorted=False),
    )


def test_invert_permutation():
    assert rnn.invert_permutation(tg.tensor([2, 0, 1])).tolist() == [1, 2, 0]
    assert rnn.invert_permutation(None) is None
    p = rnn.pack_sequence([tg.ones(1), tg.ones(3), tg.ones(2)], enforce_sorted=False)
    assert p.sorted_indices.tolist() == [1, 2, 0] and p.unsorted_indices.tolist() == [2, 0, 1]


def test_unpad_sequence_inverts_pad_sequence_without_changing_its_input():
    torch = pytest.importorskip("torch")
    seqs = _seqs([3, 1, 4])
    for batch_first in (False, True):
        padded = rnn.pad_sequence([tg.tensor(s) for s in seqs], batch_first)
        shape = padded.shape
        got = rnn.unpad_sequence(padded, tg.tensor([3, 1, 4]), batch_first)
        assert padded.shape == shape  # (PyTorch's transposes its input in place)
        want = torch.nn.utils.rnn.unpad_sequence(
            torch.tensor(padded.numpy()), torch.tensor([3, 1, 4]), batch_first
        )
        for g, w, s in zip(got, want, seqs):
            np.testing.assert_array_equal(g.numpy(), w.numpy())
            np.testing.assert_array_equal(g.numpy(), s)


def test_packed_sequence_methods():
    p = rnn.pack_sequence([tg.tensor([1.0, 2.0]), tg.tensor([3.0])])
    assert p.to(tg.float32) is p and p.float() is p and p.cpu() is p
    d = p.double()
    assert d.data.dtype == np.float64 and d.batch_sizes is p.batch_sizes
    assert isinstance(d, rnn.PackedSequence)
    for name, dtype in [("long", np.int64), ("int", np.int32), ("half", np.float16)]:
        assert getattr(p, name)().data.dtype == dtype
    for name, dtype in [("short", np.int16), ("char", np.int8), ("byte", np.uint8)]:
        assert getattr(p, name)().data.dtype == dtype
    assert p.is_cuda is False and p.is_pinned() is False
    with pytest.raises(RuntimeError, match="tapegrad computes on the CPU"):
        p.cuda()
    q = rnn.PackedSequence(p.data, p.batch_sizes, tg.tensor([1, 0]))
    assert q.unsorted_indices.tolist() == [1, 0]  # (the inverse of sorted_indices)
    r = rnn.PackedSequence((p.data, p.batch_sizes))
    assert r.batch_sizes is p.batch_sizes and r.sorted_indices is None
    with pytest.raises(AssertionError, match="list or tuple of length 2"):
        rnn.PackedSequence(p.data)
    data, batch_sizes, _, _ = p  # (a named tuple)
    assert data is p.data and batch_sizes is p.batch_sizes


def test_gradients_through_pad_pack_unpack_finite_differences():
    lengths = [2, 4, 3]

    def pad_pack_pad(a, b, c):
        padded = rnn.pad_sequence([a, b, c], batch_first=True, padding_value=0.5)
        packed = rnn.pack_padded_sequence(padded, lengths, True, enforce_sorted=False)
        return rnn.pad_packed_sequence(packed, total_length=5, padding_value=-2.0)[0] * 1.5

    check_grads(pad_pack_pad, *_seqs(lengths), second=False)

    def unpack(x):
        packed = rnn.pack_padded_sequence(x, [4, 1, 3], enforce_sorted=False)
        return tg.cat([s.sin() for s in rnn.unpack_sequence(packed)])

    check_grads(unpack, rand(4, 3, 2))


def test_gradients_match_torch():
    torch = pytest.importorskip("torch")
    lengths = [2, 4, 1, 4]
    for batch_first in (False, True):
        x = rand(4, 4, 3, seed=5) if batch_first else rand(4, 4, 3, seed=6)
        w = rand(4, 4, 3, seed=7)
        grads = []
        for lib in (tg, torch):
            leaf = lib.tensor(x, requires_grad=True)
            utils = lib.nn.utils.rnn
            packed = utils.pack_padded_sequence(leaf, lengths, batch_first, enforce_sorted=False)
            data = packed.data * lib.tensor(np.arange(packed.data.shape[0] * 3.0).reshape(-1, 3))
            packed = utils.PackedSequence(
                data, packed.batch_sizes, packed.sorted_indices, packed.unsorted_indices
            )
            padded, _ = utils.pad_packed_sequence(packed, batch_first)
            (padded * lib.tensor(w)).sum().backward()
            grads.append(_np(leaf.grad))
        np.testing.assert_allclose(grads[0], grads[1], rtol=1e-12)
        assert np.any(grads[0] == 0) and np.any(grads[0] != 0)  # padding gets no gradient


def _raises_like_torch(call, ours_args, torch_args, error, match):
    torch = pytest.importorskip("torch")
    with pytest.raises(error, match=match):
        call(rnn)(*ours_args)
    with pytest.raises(error, match=match):
        call(torch.nn.utils.rnn)(*torch_args)


def test_errors_as_torchs():
    torch = pytest.importorskip("torch")
    x, t = tg.zeros(4, 3, 2), torch.zeros(4, 3, 2)
    pack = lambda m: m.pack_padded_sequence  # noqa: E731
    cases = [
        ([2, 3, 1], RuntimeError, "must be sorted in decreasing order"),
        ([3, 0, 0], RuntimeError, "Length of all samples has to be greater than 0"),
        ([3, 1], RuntimeError, r"Expected `len\(lengths\)` to be equal to batch_size"),
    ]
    for lengths, error, match in cases:
        _raises_like_torch(pack, (x, lengths), (t, lengths), error, match)
    _raises_like_torch(
        pack, (x, tg.tensor([[3, 2, 1]])), (t, torch.tensor([[3, 2, 1]])), RuntimeError, "1D"
    )
    _raises_like_torch(pack, (tg.zeros(4), [4]), (torch.zeros(4), [4]), IndexError, "range")
    pad = lambda m: m.pad_sequence  # noqa: E731
    _raises_like_torch(pad, ([],), ([],), RuntimeError, "empty list of sequences")
    _raises_like_torch(pad, (5,), (5,), RuntimeError, "Expected iterable for input sequences")
    two = [tg.ones(2, 3), tg.ones(3, 2)]
    _raises_like_torch(pad, (two,), ([torch.ones(2, 3), torch.ones(3, 2)],), RuntimeError, None)
    sides = ([tg.ones(2)], False, 0.0, "middle"), ([torch.ones(2)], False, 0.0, "middle")
    _raises_like_torch(pad, *sides, RuntimeError, "padding_side to be one of left or right")
    p = rnn.pack_sequence([tg.ones(3), tg.ones(2)])
    q = torch.nn.utils.rnn.pack_sequence([torch.ones(3), torch.ones(2)])
    _raises_like_torch(
        lambda m: m.pad_packed_sequence,
        (p, False, 0.0, 2),
        (q, False, 0.0, 2),
        ValueError,
        "Expected total_length to be at least the length of the longest sequence",
    )


def test_deliberate_errors():
    """Where PyTorch reads past the input (a length longer than the padded input) or fails
    deep inside, tapegrad says what is wrong."""
    with pytest.raises(RuntimeError, match="longer than the input's 4 time steps"):
        rnn.pack_padded_sequence(tg.zeros(4, 3), [5, 3, 1])
    with pytest.raises(RuntimeError, match="0-d tensor"):
        rnn.pad_sequence([tg.ones(()), tg.ones(())])
    with pytest.raises(TypeError, match="every sequence must be a Tensor"):
        rnn.pad_sequence([np.ones(2)])
    with pytest.raises(TypeError, match="expected a PackedSequence"):
        rnn.pad_packed_sequence(tg.ones(3))
    with pytest.raises(ValueError, match="2 lengths for 3 sequences"):
        rnn.unpad_sequence(tg.ones(4, 3), tg.tensor([1, 2]))
    with pytest.raises(TypeError, match="batch_sizes must be a Tensor"):
        rnn.PackedSequence(tg.ones(3), [2, 1])
