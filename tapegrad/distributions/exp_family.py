"""ExponentialFamily: the base class torch gives Normal, Bernoulli, Gamma... (its members here
compute their entropies by their closed forms).

Layer L5 (the distributions package).
"""

from __future__ import annotations

from .distribution import Distribution


class ExponentialFamily(Distribution):
    """The base of exponential-family distributions (as torch's; an isinstance target).

    >>> issubclass(tg.distributions.Normal, ExponentialFamily)
    True
    """


__all__ = ["ExponentialFamily"]
