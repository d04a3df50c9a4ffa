"""Random number generators, as PyTorch's: `tg.Generator` (a stream of its own), the default
generator behind every sampler, and its seed functions (`tg.manual_seed`, `tg.seed`,
`tg.initial_seed`, `tg.get_rng_state`, `tg.set_rng_state`).

A Generator wraps a NumPy PCG64 generator. The same seed gives the same numbers on every run and
every machine, but not PyTorch's numbers (PyTorch draws from a Mersenne Twister with its own
transforms): a program seeded alike is reproducible in tapegrad, not bitwise equal to PyTorch.
As in PyTorch, a new `tg.Generator()` starts from the seed 67280421310721, while the default
generator is seeded from the operating system's entropy until `tg.manual_seed` is called.

Layer L4: imports the Tensor class (a state is a uint8 tensor, as PyTorch's ByteTensor) and
devices.
"""

from __future__ import annotations

import secrets
from typing import Any

import numpy as np

from . import devices
from .devices import DeviceLike, check_device
from .tensor import Tensor

DEFAULT_SEED = 67280421310721  # a new torch.Generator()'s initial seed

_SEED_LOW, _SEED_HIGH = -(2**63), 2**64 - 1  # the seeds PyTorch takes (negatives wrap around)
_STATE_BYTES = 16 + 16 + 1 + 4 + 8  # PCG64's state and increment, its spare 32 bits, the seed


def _seed_value(seed: Any, who: str) -> int:
    """A seed as PyTorch reads it: any int in [-2**63, 2**64), a negative one taken modulo 2**64."""
    if not isinstance(seed, (int, np.integer)):  # (bool is an int, as in PyTorch)
        raise TypeError(f"{who} expects an int, got {type(seed).__name__} {seed!r}")
    seed = int(seed)
    if not _SEED_LOW <= seed <= _SEED_HIGH:
        raise ValueError(f"{who}: seed {seed} is out of range; a seed is an int in [-2**63, 2**64)")
    return seed % 2**64


class Generator:
    """A random stream of its own: samplers given `generator=` draw from it, not from the default.

    >>> g = tg.Generator().manual_seed(2147483647)
    >>> tg.randn(2, generator=g).shape
    (2,)
    """

    def __init__(self, device: DeviceLike = "cpu") -> None:
        check_device(device, "Generator")
        self._device = devices.device("cpu")
        self.manual_seed(DEFAULT_SEED)

    @property
    def device(self) -> devices.device:
        """Where the generator makes its numbers: always `device(type='cpu')`."""
        return self._device

    def manual_seed(self, seed: int) -> "Generator":
        """Restart the stream from `seed`; returns the generator itself.

        >>> g = tg.Generator().manual_seed(0)
        """
        self._seed = _seed_value(seed, "manual_seed")
        self.numpy = np.random.Generator(np.random.PCG64(self._seed))
        return self

    def seed(self) -> int:
        """Restart the stream from a fresh seed taken from the system's entropy; returns the seed.

        >>> s = tg.Generator().seed()
        """
        seed = secrets.randbits(64)
        self.manual_seed(seed)
        return seed

    def initial_seed(self) -> int:
        """The seed the stream was last started from.

        >>> tg.Generator().manual_seed(3).initial_seed()
        3
        """
        return self._seed

    def get_state(self) -> Tensor:
        """The stream's position as a uint8 tensor (PyTorch's ByteTensor), for set_state.

        >>> g = tg.Generator(); state = g.get_state(); a = tg.rand(2, generator=g)
        >>> g.set_state(state); bool((tg.rand(2, generator=g) == a).all())
        True
        """
        bits = self.numpy.bit_generator.state
        parts = (
            bits["state"]["state"].to_bytes(16, "little"),
            bits["state"]["inc"].to_bytes(16, "little"),
            bits["has_uint32"].to_bytes(1, "little"),
            bits["uinteger"].to_bytes(4, "little"),
            self._seed.to_bytes(8, "little"),
        )
        return Tensor(np.frombuffer(b"".join(parts), np.uint8).copy())

    def set_state(self, new_state: Tensor) -> "Generator":
        """Go back to a position saved by get_state; returns the generator itself."""
        if not isinstance(new_state, Tensor) or new_state.dtype != np.uint8:
            raise TypeError(
                f"RNG state must be a uint8 tensor made by get_state(), got "
                f"{getattr(new_state, 'dtype', type(new_state).__name__)}"
            )
        raw = new_state.numpy().tobytes()
        if len(raw) != _STATE_BYTES:
            raise RuntimeError(
                f"Expected a state of {_STATE_BYTES} bytes (as get_state() makes), but found the "
                f"input RNG state size to be {len(raw)}"
            )
        bits = np.random.PCG64()
        bits.state = {
            "bit_generator": "PCG64",
            "state": {
                "state": int.from_bytes(raw[0:16], "little"),
                "inc": int.from_bytes(raw[16:32], "little"),
            },
            "has_uint32": raw[32],
            "uinteger": int.from_bytes(raw[33:37], "little"),
        }
        self.numpy = np.random.Generator(bits)
        self._seed = int.from_bytes(raw[37:45], "little")
        return self

    def __repr__(self) -> str:
        return f"<tapegrad.Generator (cpu) at {id(self):#x}>"


# The default generator: the factories, nn's initialisation, dropout and the data loaders draw from
# it when no generator is given. Seeded from the system's entropy, as PyTorch's, until manual_seed.
default_generator = Generator()
default_generator.seed()


def manual_seed(seed: int) -> Generator:
    """Seed the default generator (randn, rand, initialisation, dropout, shuffling); returns it.

    >>> g = tg.manual_seed(0)
    """
    return default_generator.manual_seed(seed)


def seed() -> int:
    """Seed the default generator from the system's entropy; returns the seed.

    >>> s = tg.seed()
    """
    return default_generator.seed()


def initial_seed() -> int:
    """The seed the default generator was last started from.

    >>> tg.manual_seed(7); tg.initial_seed()
    7
    """
    return default_generator.initial_seed()


def get_rng_state() -> Tensor:
    """The default generator's state (a uint8 tensor), for set_rng_state.

    >>> state = tg.get_rng_state()
    """
    return default_generator.get_state()


def set_rng_state(new_state: Tensor) -> None:
    """Put the default generator back where get_rng_state found it.

    >>> tg.set_rng_state(state)
    """
    default_generator.set_state(new_state)


def numpy_generator(generator: Any = None, who: str = "generator") -> np.random.Generator:
    """The NumPy generator to draw from: `generator`'s, or the default one's when it is None
    (a NumPy Generator is taken as it is).

    >>> numpy_generator(None).random()  # doctest: +SKIP
    """
    if generator is None:
        return default_generator.numpy
    if isinstance(generator, Generator):
        return generator.numpy
    if isinstance(generator, np.random.Generator):
        return generator
    raise TypeError(
        f"{who}: generator must be a tg.Generator (e.g. tg.Generator().manual_seed(0)), got "
        f"{type(generator).__name__}"
    )


__all__ = [
    "Generator",
    "default_generator",
    "get_rng_state",
    "initial_seed",
    "manual_seed",
    "numpy_generator",
    "seed",
    "set_rng_state",
]
