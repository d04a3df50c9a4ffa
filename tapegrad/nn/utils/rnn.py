"""torch.nn.utils.rnn: PackedSequence and the functions that pad, pack and unpack sequences of
different lengths (pad_sequence, pack_padded_sequence, pad_packed_sequence, pack_sequence,
unpack_sequence, unpad_sequence, invert_permutation).

Each move of values is ONE recorded op, so gradients flow through all of them: packing is an
index_select of the padded input's rows (time-major, the sort by length folded into the index),
padding a packed batch an index_select of its rows with one extra row of padding_value (a
constant) standing for every padded place. The index arithmetic is NumPy on lengths, as
PyTorch's is C++ on its CPU lengths.

Layer L5: imports tensor.py, math's cat/stack and creation's full.
"""

from __future__ import annotations

from typing import Any, Iterable, NamedTuple, Sequence

import numpy as np

from ...creation import full
from ...math import cat, stack
from ...tensor import Tensor


class _PackedFields(NamedTuple):
    data: Tensor
    batch_sizes: Tensor
    sorted_indices: Tensor | None
    unsorted_indices: Tensor | None


def _index_array(value: Any, what: str) -> np.ndarray:
    array = value.numpy() if isinstance(value, Tensor) else np.asarray(value)
    if array.ndim != 1 or not (array.size == 0 or np.issubdtype(array.dtype, np.integer)):
        raise RuntimeError(
            f"'{what}' should be a 1-D tensor of integers, got {array.dtype} of shape "
            f"{list(array.shape)}"
        )
    return array.astype(np.int64)


def invert_permutation(permutation: Tensor | None) -> Tensor | None:
    """The inverse of a permutation of 0..n-1 (None for None): how a PackedSequence's
    unsorted_indices follow from its sorted_indices.

    >>> tg.nn.utils.rnn.invert_permutation(tg.tensor([2, 0, 1]))
    tensor([1, 2, 0])
    """
    if permutation is None:
        return None
    perm = _index_array(permutation, "permutation")
    inverse = np.empty_like(perm)
    inverse[perm] = np.arange(perm.size, dtype=np.int64)
    return Tensor(inverse)


class PackedSequence(_PackedFields):
    """A batch of sequences of different lengths packed time step by time step: `data` holds the
    steps of the sequences still running at each time (longest first), `batch_sizes` how many
    run at each time; sorted_indices / unsorted_indices the sort by length and its inverse (None
    when the batch came sorted). The RNN layers take and return it. Make it with pack_sequence
    or pack_padded_sequence.

    >>> p = tg.nn.utils.rnn.pack_sequence([tg.tensor([1, 2, 3]), tg.tensor([4, 5])])
    >>> p.data, p.batch_sizes
    (tensor([1, 4, 2, 5, 3]), tensor([2, 2, 1]))
    """

    def __new__(
        cls,
        data: Any,
        batch_sizes: Tensor | None = None,
        sorted_indices: Tensor | None = None,
        unsorted_indices: Tensor | None = None,
    ) -> PackedSequence:
        if unsorted_indices is None:
            unsorted_indices = invert_permutation(sorted_indices)
        if batch_sizes is None:  # PackedSequence((data, batch_sizes), sorted_indices=...)
            if not (isinstance(data, (list, tuple)) and len(data) == 2):
                raise AssertionError("Expected data to be a list or tuple of length 2")
            data, batch_sizes = data
        if not isinstance(batch_sizes, Tensor):
            raise TypeError(
                f"PackedSequence: batch_sizes must be a Tensor of int64, got "
                f"{type(batch_sizes).__name__}; make packed sequences with pack_sequence or "
                f"pack_padded_sequence"
            )
        return super().__new__(cls, data, batch_sizes, sorted_indices, unsorted_indices)

    def to(self, *args: Any, **kwargs: Any) -> PackedSequence:
        """data.to(...) (batch_sizes and the indices stay); self when nothing changes.

        >>> tg.nn.utils.rnn.pack_sequence([tg.ones(2)]).to(tg.float64).data.dtype
        dtype('float64')
        """
        data = self.data.to(*args, **kwargs)
        if data is self.data:
            return self
        return type(self)(data, self.batch_sizes, self.sorted_indices, self.unsorted_indices)

    def cpu(self, *args: Any, **kwargs: Any) -> PackedSequence:
        """self (everything is on the CPU already).

        >>> tg.nn.utils.rnn.pack_sequence([tg.ones(2)]).cpu().is_cuda
        False
        """
        return self.to(*args, **kwargs)

    def cuda(self, *args: Any, **kwargs: Any) -> PackedSequence:
        """Refused as Tensor.cuda is: tapegrad computes on the CPU.

        >>> tg.nn.utils.rnn.pack_sequence([tg.ones(2)]).cuda()  # doctest: +SKIP
        """
        return self.to(self.data.cuda(*args, **kwargs).dtype)

    def pin_memory(self) -> PackedSequence:
        """Refused as Tensor.pin_memory is (no pinned memory on a CPU-only install).

        >>> tg.nn.utils.rnn.pack_sequence([tg.ones(2)]).pin_memory()  # doctest: +SKIP
        """
        return type(self)(
            self.data.pin_memory(), self.batch_sizes, self.sorted_indices, self.unsorted_indices
        )

    def double(self) -> PackedSequence:
        """data as float64. >>> p.double()"""
        return self.to(dtype=np.float64)

    def float(self) -> PackedSequence:
        """data as float32. >>> p.float()"""
        return self.to(dtype=np.float32)

    def half(self) -> PackedSequence:
        """data as float16. >>> p.half()"""
        return self.to(dtype=np.float16)

    def long(self) -> PackedSequence:
        """data as int64. >>> p.long()"""
        return self.to(dtype=np.int64)

    def int(self) -> PackedSequence:
        """data as int32. >>> p.int()"""
        return self.to(dtype=np.int32)

    def short(self) -> PackedSequence:
        """data as int16. >>> p.short()"""
        return self.to(dtype=np.int16)

    def char(self) -> PackedSequence:
        """data as int8. >>> p.char()"""
        return self.to(dtype=np.int8)

    def byte(self) -> PackedSequence:
        """data as uint8. >>> p.byte()"""
        return self.to(dtype=np.uint8)

    @property
    def is_cuda(self) -> bool:
        """False: data is on the CPU. >>> p.is_cuda"""
        return bool(self.data.is_cuda)

    def is_pinned(self) -> bool:
        """False: no pinned memory. >>> p.is_pinned()"""
        return bool(self.data.is_pinned())


def _lengths(lengths: Any) -> np.ndarray:
    if isinstance(lengths, Tensor):
        array = lengths.numpy()
        if array.ndim != 1:
            raise RuntimeError(
                f"'lengths' argument should be a 1D CPU int64 tensor, but got {array.ndim}D tensor"
            )
        return array.astype(np.int64)
    array = np.asarray(lengths)
    if array.ndim != 1 or not (array.size == 0 or np.issubdtype(array.dtype, np.number)):
        raise RuntimeError(f"'lengths' should be a list of ints or a 1-D tensor, got {lengths!r}")
    return array.astype(np.int64)


def _batch_sizes_of(sorted_lengths: np.ndarray) -> np.ndarray:
    """How many sequences (sorted longest first) run at each time step."""
    steps = np.arange(int(sorted_lengths[0]) if sorted_lengths.size else 0)
    return (sorted_lengths[None, :] > steps[:, None]).sum(1).astype(np.int64)


def pack_padded_sequence(
    input: Tensor,
    lengths: Tensor | Sequence[int],
    batch_first: bool = False,
    enforce_sorted: bool = True,
) -> PackedSequence:
    """Pack a padded batch (T, B, *) ((B, T, *) if batch_first) whose sequence b has
    lengths[b] steps; enforce_sorted=False sorts them by length itself (otherwise they must come
    longest first). Differentiable with respect to input.

    >>> x = tg.tensor([[1, 4], [2, 5], [3, 0]])  # (T=3, B=2), the second of length 2
    >>> tg.nn.utils.rnn.pack_padded_sequence(x, [3, 2]).data
    tensor([1, 4, 2, 5, 3])
    """
    if not isinstance(input, Tensor):
        raise TypeError(f"pack_padded_sequence: input must be a Tensor, got {type(input).__name__}")
    if input.ndim < 2:
        raise IndexError(
            f"Dimension out of range (expected to be in range of [-{max(input.ndim, 1)}, "
            f"{max(input.ndim, 1) - 1}], but got 1): pack_padded_sequence needs an input of "
            f"at least 2 dimensions (time and batch)"
        )
    array = _lengths(lengths)
    steps, batch = (input.shape[1], input.shape[0]) if batch_first else input.shape[:2]
    if array.size != batch:
        raise RuntimeError(
            f"Expected `len(lengths)` to be equal to batch_size, but got {array.size} "
            f"(batch_size={batch})"
        )
    order: np.ndarray | None = None
    if not enforce_sorted:
        order = np.argsort(-array, kind="stable")
        array = array[order]
    if batch and array[-1] <= 0:
        raise RuntimeError(
            "Length of all samples has to be greater than 0, but found an element in 'lengths' "
            "that is <= 0"
        )
    if np.any(np.diff(array) > 0):
        raise RuntimeError(
            "`lengths` array must be sorted in decreasing order when `enforce_sorted` is True. "
            "You can pass `enforce_sorted=False` to pack_padded_sequence and/or pack_sequence "
            "to sidestep this requirement if you do not need ONNX exportability."
        )
    if batch and array[0] > steps:
        raise RuntimeError(
            f"pack_padded_sequence: a length of {int(array[0])} is longer than the input's "
            f"{steps} time steps (axis {0 if not batch_first else 1}); pass each sequence's "
            f"true length"
        )
    batch_sizes = _batch_sizes_of(array)
    columns = np.arange(batch) if order is None else order
    t_idx = np.concatenate([np.full(n, t) for t, n in enumerate(batch_sizes)]).astype(np.int64)
    b_idx = np.concatenate([columns[:n] for n in batch_sizes]).astype(np.int64)
    flat = b_idx * steps + t_idx if batch_first else t_idx * batch + b_idx
    rows = input.reshape((steps * batch, *input.shape[2:]))
    data = rows.index_select(0, Tensor(flat))
    sorted_indices = None if order is None else Tensor(order.astype(np.int64))
    return PackedSequence(data, Tensor(batch_sizes), sorted_indices, None)


def _check_packed(sequence: Any, name: str) -> PackedSequence:
    if not isinstance(sequence, PackedSequence):
        raise TypeError(f"{name}: expected a PackedSequence, got {type(sequence).__name__}")
    return sequence


def pad_packed_sequence(
    sequence: PackedSequence,
    batch_first: bool = False,
    padding_value: float = 0.0,
    total_length: int | None = None,
) -> tuple[Tensor, Tensor]:
    """Unpack a PackedSequence into (padded, lengths): padded (T, B, *) ((B, T, *) if
    batch_first, T = total_length or the longest), the sequences back in their original order;
    lengths an int64 tensor. The inverse of pack_padded_sequence; differentiable.

    >>> p = tg.nn.utils.rnn.pack_sequence([tg.tensor([1, 2, 3]), tg.tensor([4, 5])])
    >>> tg.nn.utils.rnn.pad_packed_sequence(p, batch_first=True)
    (tensor([[1, 2, 3],
            [4, 5, 0]]), tensor([3, 2]))
    """
    sequence = _check_packed(sequence, "pad_packed_sequence")
    batch_sizes = _index_array(sequence.batch_sizes, "batch_sizes")
    steps = batch_sizes.size
    if total_length is not None:
        if total_length < steps:
            raise ValueError(
                "Expected total_length to be at least the length of the longest sequence in "
                f"input, but got total_length={total_length} and max sequence length being "
                f"{steps}"
            )
        steps = int(total_length)
    data = sequence.data
    batch = int(batch_sizes[0]) if batch_sizes.size else 0
    offsets = np.concatenate([[0], np.cumsum(batch_sizes)[:-1]]).astype(np.int64)
    n = int(batch_sizes.sum())
    index = np.full((steps, batch), n, dtype=np.int64)  # n: the padding row
    for t, size in enumerate(batch_sizes):
        index[t, :size] = offsets[t] + np.arange(size)
    sorted_lengths = (index != n).sum(0).astype(np.int64)
    unsorted = sequence.unsorted_indices
    lengths = sorted_lengths
    if unsorted is not None:
        columns = _index_array(unsorted, "unsorted_indices")
        index, lengths = index[:, columns], sorted_lengths[columns]
    if batch_first:
        index = index.T
    pad = full((1, *data.shape[1:]), padding_value, dtype=data.dtype)
    rows = cat([data, pad]).index_select(0, Tensor(np.ascontiguousarray(index).ravel()))
    return rows.reshape((*index.shape, *data.shape[1:])), Tensor(lengths)


def pad_sequence(
    sequences: Tensor | Iterable[Tensor],
    batch_first: bool = False,
    padding_value: float = 0.0,
    padding_side: str = "right",
) -> Tensor:
    """Stack sequences of shapes (L_i, *) into (T, B, *) ((B, T, *) if batch_first), each
    padded with padding_value to the longest length T on padding_side ('right' or 'left'), in
    the first sequence's dtype. Differentiable.

    >>> tg.nn.utils.rnn.pad_sequence([tg.tensor([1, 2, 3]), tg.tensor([4])], batch_first=True)
    tensor([[1, 2, 3],
            [4, 0, 0]])
    """
    if not isinstance(sequences, (Tensor, Iterable)):
        raise RuntimeError(
            "pad_sequence: Expected iterable for input sequences, but got arg of type: "
            f"{type(sequences)}"
        )
    seqs = list(sequences.unbind(0)) if isinstance(sequences, Tensor) else list(sequences)
    if padding_side not in ("left", "right"):
        raise RuntimeError(
            f"Expected padding_side to be one of left or right, but got {padding_side}."
        )
    if not seqs:
        raise RuntimeError("received an empty list of sequences")
    for s in seqs:
        if not isinstance(s, Tensor):
            raise TypeError(
                f"pad_sequence: every sequence must be a Tensor, got {type(s).__name__}"
            )
        if s.ndim == 0:
            raise RuntimeError(
                "pad_sequence: a sequence is a 0-d tensor; each must have a length axis (L, *)"
            )
        if s.shape[1:] != seqs[0].shape[1:]:
            raise RuntimeError(
                f"pad_sequence: every sequence must have the trailing shape of the first, "
                f"{list(seqs[0].shape[1:])}, got {list(s.shape[1:])}"
            )
    dtype = seqs[0].dtype
    longest = max(s.shape[0] for s in seqs)
    padded = []
    for s in seqs:
        s = s.to(dtype)
        short = longest - s.shape[0]
        if short:
            pad = full((short, *s.shape[1:]), padding_value, dtype=dtype)
            s = cat([s, pad] if padding_side == "right" else [pad, s])
        padded.append(s)
    return stack(padded, 0 if batch_first else 1)


def unpad_sequence(
    padded_sequences: Tensor, lengths: Tensor | Sequence[int], batch_first: bool = False
) -> list[Tensor]:
    """The list of sequences padded_sequences holds, sequence b cut to lengths[b] steps (the
    inverse of pad_sequence; differentiable).

    >>> tg.nn.utils.rnn.unpad_sequence(tg.tensor([[1, 2, 3], [4, 0, 0]]), tg.tensor([3, 1]), True)
    [tensor([1, 2, 3]), tensor([4])]
    """
    if not isinstance(padded_sequences, Tensor):
        raise TypeError(
            f"unpad_sequence: padded_sequences must be a Tensor, got "
            f"{type(padded_sequences).__name__}"
        )
    array = _lengths(lengths)
    rows = padded_sequences if batch_first else padded_sequences.transpose(0, 1)
    if array.size != rows.shape[0]:
        raise ValueError(
            f"unpad_sequence: {array.size} lengths for {rows.shape[0]} sequences; pass one "
            f"length per sequence"
        )
    return [rows[b, : int(n)] for b, n in enumerate(array)]


def pack_sequence(sequences: Sequence[Tensor], enforce_sorted: bool = True) -> PackedSequence:
    """pack_padded_sequence(pad_sequence(sequences), their lengths): sequences of shapes
    (L_i, *), longest first unless enforce_sorted=False.

    >>> tg.nn.utils.rnn.pack_sequence([tg.tensor([4, 5]), tg.tensor([1, 2, 3])], False).data
    tensor([1, 4, 2, 5, 3])
    """
    seqs = list(sequences)
    lengths = [s.shape[0] if isinstance(s, Tensor) and s.ndim else 0 for s in seqs]
    return pack_padded_sequence(pad_sequence(seqs), lengths, enforce_sorted=enforce_sorted)


def unpack_sequence(packed_sequences: PackedSequence) -> list[Tensor]:
    """The list of sequences a PackedSequence holds, in their original order.

    >>> p = tg.nn.utils.rnn.pack_sequence([tg.tensor([1, 2, 3]), tg.tensor([4, 5])])
    >>> tg.nn.utils.rnn.unpack_sequence(p)
    [tensor([1, 2, 3]), tensor([4, 5])]
    """
    padded, lengths = pad_packed_sequence(packed_sequences, batch_first=True)
    return unpad_sequence(padded, lengths, batch_first=True)


__all__ = [
    "PackedSequence",
    "invert_permutation",
    "pack_padded_sequence",
    "pack_sequence",
    "pad_packed_sequence",
    "pad_sequence",
    "unpack_sequence",
    "unpad_sequence",
]
