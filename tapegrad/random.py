"""Random number generators, as PyTorch's: `tg.Generator` (a stream of its own), the default
generator behind every sampler, and its seed functions (`tg.manual_seed`, `tg.seed`,
`tg.initial_seed`, `tg.get_rng_state`, `tg.set_rng_state`).

A Generator is PyTorch's CPU generator: the same 32-bit Mersenne Twister seeded the same way
(mt19937.py) and the same transforms (torch_draws.py), so a program seeded as in PyTorch draws
PyTorch's numbers: `tg.manual_seed(0); tg.randn(3)` prints what `torch.manual_seed(0);
torch.randn(3)` prints (integers and permutations exactly, floats to the last bit on x86 CPUs,
whose AVX2 kernel torch uses). Its state is PyTorch's 5056-byte ByteTensor layout, so states pass
between the two. As in PyTorch, a new `tg.Generator()` starts from the seed 67280421310721, while
the default generator is seeded from the operating system's entropy until `tg.manual_seed` is
called.

Where PyTorch's own numbers depend on the machine, tapegrad follows one path: Bernoulli draws with
a scalar p (dropout, `bernoulli_(0.3)`) are PyTorch's on non-Intel CPUs (on Intel CPUs PyTorch's
MKL build draws them from an MKL MCG31 stream seeded by one word of the generator), and float32
normals of 16 or more values are rounded as PyTorch's AVX2 kernel rounds them (a CPU without
AVX2 would give libm's values in PyTorch). A tensor filled in place through a non-contiguous view
takes PyTorch's contiguous path here (PyTorch's normal_ then goes one value at a time).

Layer L4: imports the Tensor class (a state is a uint8 tensor, as PyTorch's ByteTensor), devices,
and the L0 engine and samplers (mt19937.py, torch_draws.py).
"""

from __future__ import annotations

import secrets
from typing import Any

import numpy as np

from . import devices
from .devices import DeviceLike, check_device
from .mt19937 import MT19937, STATE_BYTES
from .tensor import Tensor
from .torch_draws import Draws

DEFAULT_SEED = 67280421310721  # a new torch.Generator()'s initial seed

_SEED_LOW, _SEED_HIGH = -(2**63), 2**64 - 1  # the seeds PyTorch takes (negatives wrap around)


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
        self.draws = Draws(MT19937(DEFAULT_SEED))  # what the samplers draw from (torch_draws)

    @property
    def device(self) -> devices.device:
        """Where the generator makes its numbers: always `device(type='cpu')`."""
        return self._device

    def manual_seed(self, seed: int) -> "Generator":
        """Restart the stream from `seed`; returns the generator itself.

        >>> g = tg.Generator().manual_seed(0)
        """
        self._reseed(_seed_value(seed, "manual_seed"))
        return self

    def _reseed(self, seed: int) -> None:
        draws = getattr(self.draws, "inner", self.draws)  # (under vmap: the wrapped draws)
        draws.engine.reseed(seed)
        draws.next_double_normal = draws.next_float_normal = None

    def seed(self) -> int:
        """Restart the stream from a fresh seed taken from the system's entropy; returns the seed.

        >>> s = tg.Generator().seed()
        """
        seed = secrets.randbits(64)
        self._reseed(seed)
        return seed

    def initial_seed(self) -> int:
        """The seed the stream was last started from.

        >>> tg.Generator().manual_seed(3).initial_seed()
        3
        """
        return getattr(self.draws, "inner", self.draws).engine.seed

    def get_state(self) -> Tensor:
        """The stream's position as a uint8 tensor (PyTorch's ByteTensor), for set_state.

        >>> g = tg.Generator(); state = g.get_state(); a = tg.rand(2, generator=g)
        >>> g.set_state(state); bool((tg.rand(2, generator=g) == a).all())
        True
        """
        draws = getattr(self.draws, "inner", self.draws)
        raw = draws.engine.to_torch_bytes(draws.next_double_normal, draws.next_float_normal)
        return Tensor(np.frombuffer(raw, np.uint8).copy())

    def set_state(self, new_state: Tensor) -> "Generator":
        """Go back to a position saved by get_state (or PyTorch's get_state bytes); returns the
        generator itself.

        >>> g = tg.Generator(); g.set_state(g.get_state()) is g
        True
        """
        if not isinstance(new_state, Tensor) or new_state.dtype != np.uint8:
            raise TypeError(
                f"RNG state must be a uint8 tensor made by get_state(), got "
                f"{getattr(new_state, 'dtype', type(new_state).__name__)}"
            )
        raw = new_state.numpy().tobytes()
        if len(raw) != STATE_BYTES:
            raise RuntimeError(
                f"Expected a CPUGeneratorImplState of size {STATE_BYTES} but found the input RNG "
                f"state size to be {len(raw)} (pass a state made by get_state() or "
                f"torch.get_rng_state())"
            )
        draws = getattr(self.draws, "inner", self.draws)
        cached = draws.engine.from_torch_bytes(raw)
        draws.next_double_normal, draws.next_float_normal = cached
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


def numpy_generator(generator: Any = None, who: str = "generator") -> Draws:
    """The samplers to draw from (torch_draws.Draws): `generator`'s, or the default generator's
    when it is None.

    >>> numpy_generator(None).random(2).shape
    (2,)
    """
    if generator is None:
        return default_generator.draws
    if isinstance(generator, Generator):
        return generator.draws
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
