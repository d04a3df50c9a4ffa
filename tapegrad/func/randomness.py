"""Random ops inside vmap, as torch.func's `randomness`: "error" (a random op raises), "different"
(each example draws its own numbers), "same" (one draw the batch shares).

Layer L5: the L0 state, random (the default generator behind randn, rand, dropout, nn.init) and
BatchedArray. While a vmap runs, the default generator's samplers (torch_draws) are wrapped in
`RandomUnderVmap`, which draws as the running vmaps say; another thread's draws (no vmap running
there) pass straight through. (A tg.Generator passed as generator= draws unwrapped.)
"""

from __future__ import annotations

import threading
from typing import Any, Callable

from ..random import default_generator
from .._state import state
from ..primitives.batched_array import BatchedArray

# where each of numpy.random.Generator's draws takes its `size`, positionally
SIZE_AT = {
    "random": 0,
    "standard_normal": 0,
    "standard_exponential": 0,
    "standard_gamma": 1,
    "exponential": 1,
    "poisson": 1,
    "geometric": 1,
    "normal": 2,
    "uniform": 2,
    "integers": 2,
    "binomial": 2,
    "gamma": 2,
    "beta": 2,
    "laplace": 2,
    "logistic": 2,
    "lognormal": 2,
    "choice": 1,
    "exponential_rate": 1,
    "cauchy": 2,
    "standard_cauchy": 0,
    "bernoulli": 1,
    "full_range": 0,
}
NOT_DRAWS = frozenset({"bit_generator", "spawn"})

RANDOM_IN_ERROR_MODE = (
    "vmap: a random operation was called inside vmap with randomness='error'. Pass "
    "randomness='different' (each example draws its own numbers) or 'same' (one draw shared by "
    "the batch) to vmap, or draw the random numbers outside vmap"
)


class RandomUnderVmap:
    """tapegrad's random generator while a vmap runs: draws follow the running vmaps."""

    def __init__(self, generator: Any) -> None:
        self.inner = generator

    def __getattr__(self, name: str) -> Any:
        value = getattr(self.inner, name)
        if name.startswith("_") or name in NOT_DRAWS or not callable(value):
            return value
        return _drawing(name, value)


def _drawing(name: str, draw: Callable) -> Callable:
    def run(*args: Any, **kwargs: Any) -> Any:
        levels = state.vmap_levels
        if not levels:
            return draw(*args, **kwargs)
        if any(level.randomness == "error" for level in levels):
            raise RuntimeError(RANDOM_IN_ERROR_MODE)
        different = [level for level in levels if level.randomness == "different"]
        if not different:
            return draw(*args, **kwargs)
        at = SIZE_AT.get(name)
        if at is None:
            raise RuntimeError(
                f"vmap: randomness='different' cannot draw Generator.{name} per example; draw "
                f"it outside vmap, or use randomness='same'"
            )
        given, size = list(args), kwargs.pop("size", None)
        if len(given) > at:
            size = given.pop(at)
        shape = () if size is None else tuple(size) if hasattr(size, "__len__") else (int(size),)
        values = draw(*given, size=tuple(level.size for level in different) + shape, **kwargs)
        for level in different:  # (the outermost level's examples along the first axis)
            values = BatchedArray(values, level, True)
        return values

    return run


_lock = threading.Lock()
_users = [0]  # vmaps running, over all threads: the wrapper is in place while there are any


def enter() -> None:
    """A vmap starts: random draws go through RandomUnderVmap."""
    with _lock:
        _users[0] += 1
        if not isinstance(default_generator.draws, RandomUnderVmap):
            wrapped = RandomUnderVmap(default_generator.draws)
            setattr(default_generator, "draws", wrapped)  # (a stand-in Draws)


def leave() -> None:
    """A vmap ends: the plain generator is back once none runs (unless it was reseeded since)."""
    with _lock:
        _users[0] -= 1
        if not _users[0] and isinstance(default_generator.draws, RandomUnderVmap):
            default_generator.draws = default_generator.draws.inner


def generator_state() -> Any:
    """The state of tapegrad's generator (to draw the same numbers again: randomness='same' over
    chunks)."""
    gen = default_generator.draws
    return getattr(gen, "inner", gen).bit_generator.state


def set_generator_state(saved: Any) -> None:
    gen = default_generator.draws
    getattr(gen, "inner", gen).bit_generator.state = saved
