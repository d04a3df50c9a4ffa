"""PyTorch's CPU random engine: a 32-bit Mersenne Twister (mt19937) seeded by `init_genrand` with
the seed's low 32 bits, its 32- and 64-bit draws, and the 5056-byte state PyTorch's
`get_rng_state` returns (so states pass between tapegrad and PyTorch both ways).

NumPy's `MT19937` bit generator is the same twister: seeded through the legacy
`RandomState(seed32)` (which runs `init_genrand`), its `random_raw` gives PyTorch's words, fast.
A 64-bit draw joins two words, the first one high (PyTorch's `random64`).

Layer L0: numpy only.
"""

from __future__ import annotations

import struct

import numpy as np

N = 624  # words in the twister's state
STATE_BYTES = 5056  # sizeof(CPUGeneratorImplState) in PyTorch
# the byte layout of PyTorch's CPUGeneratorImplState (x86-64, little-endian): initial seed
# (uint64), left (int32), seeded (int32), next (uint64), the 624 words (each a uint64),
# normal_x / normal_y / normal_rho (doubles: normal_y is the cached double normal sample),
# normal_is_valid (int32, 4 bytes padding), the cached float normal sample (float32), its flag
_HEAD = struct.Struct("<QiiQ")
_STATE_AT, _NORMAL_AT, _FLOAT_AT = 24, 24 + 8 * N, 5048
_NORMAL = struct.Struct("<dddi")
_FLOAT = struct.Struct("<f?")


class MT19937:
    """The twister PyTorch's CPU generator draws from: `random32`/`random64` words in its order.

    >>> MT19937(2147483647).random32(2).tolist()
    [1689602031, 3831148394]
    """

    __slots__ = ("bits", "seed", "_fresh")

    def __init__(self, seed: int = 5489) -> None:
        self.bits = np.random.MT19937()
        self.reseed(seed)

    def reseed(self, seed: int) -> None:
        """Start over from `seed` (any int in [0, 2**64); its low 32 bits seed the words)."""
        legacy = np.random.RandomState(seed & 0xFFFFFFFF).get_state(legacy=False)
        key = legacy["state"]["key"]
        self.bits.state = {"bit_generator": "MT19937", "state": {"key": key, "pos": N}}
        self.seed = seed
        self._fresh = True  # (PyTorch's state then says left=1, next=0)

    def random32(self, count: int) -> np.ndarray:
        """The next `count` 32-bit words (uint32), as PyTorch's `random()` returns them."""
        self._fresh = False
        return self.bits.random_raw(count).astype(np.uint32)

    def random64(self, count: int) -> np.ndarray:
        """The next `count` 64-bit draws (uint64): two words each, the first the high half."""
        self._fresh = False
        words = self.bits.random_raw(2 * count)
        return (words[0::2] << np.uint64(32)) | words[1::2]

    def snapshot(self) -> tuple:
        """Everything needed to come back here (restore)."""
        return (self.bits.state, self.seed, self._fresh)

    def restore(self, saved: tuple) -> None:
        """Come back to a snapshot."""
        self.bits.state, self.seed, self._fresh = saved[0], saved[1], saved[2]

    def to_torch_bytes(self, next_double: float | None, next_float: float | None) -> bytes:
        """PyTorch's state bytes for this position and the generator's cached normal samples."""
        state = self.bits.state["state"]
        pos = int(state["pos"])
        left, next_ = (1, 0) if self._fresh else (N + 1 - pos, pos) if pos < N else (1, N)
        out = bytearray(STATE_BYTES)
        _HEAD.pack_into(out, 0, self.seed, left, 1, next_)
        out[_STATE_AT:_NORMAL_AT] = np.asarray(state["key"], np.uint64).astype("<u8").tobytes()
        valid = next_double is not None
        _NORMAL.pack_into(out, _NORMAL_AT, 0.0, next_double if valid else 0.0, 0.0, int(valid))
        fvalid = next_float is not None
        _FLOAT.pack_into(out, _FLOAT_AT, next_float if fvalid else 0.0, fvalid)
        return bytes(out)

    def from_torch_bytes(self, raw: bytes) -> tuple[float | None, float | None]:
        """Take PyTorch's state bytes; returns the cached (double, float) normal samples."""
        if len(raw) != STATE_BYTES:
            raise RuntimeError(
                f"Expected a CPUGeneratorImplState of size {STATE_BYTES} but found the input RNG "
                f"state size to be {len(raw)}"
            )
        seed, left, seeded, next_ = _HEAD.unpack_from(raw, 0)
        words = np.frombuffer(raw[_STATE_AT:_NORMAL_AT], "<u8")
        if not seeded or not 0 < left <= N or not 0 <= next_ <= N:
            raise RuntimeError("Invalid mt19937 state")
        if left == 1:
            pos, fresh = N, next_ == 0  # the next draw twists first
        elif left + next_ == N + 1:
            pos, fresh = next_, False
        else:
            raise RuntimeError(
                f"Invalid mt19937 state: left={left} and next={next_} do not describe one "
                f"position (left + next must be {N + 1}); tapegrad takes the states PyTorch's "
                f"generator reaches by drawing"
            )
        key = (words & np.uint64(0xFFFFFFFF)).astype(np.uint32)
        self.bits.state = {"bit_generator": "MT19937", "state": {"key": key, "pos": pos}}
        self.seed, self._fresh = seed, fresh
        _, normal_y, _, normal_valid = _NORMAL.unpack_from(raw, _NORMAL_AT)
        next_float, float_valid = _FLOAT.unpack_from(raw, _FLOAT_AT)
        return (normal_y if normal_valid else None), (next_float if float_valid else None)


__all__ = ["MT19937", "STATE_BYTES"]
