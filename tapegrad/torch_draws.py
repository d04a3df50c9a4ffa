"""PyTorch's CPU samplers, value for value: how torch turns its twister's words (mt19937.py) into
uniform, normal, integer, exponential, geometric, Cauchy, log-normal and Bernoulli samples and
permutations, each vectorised with NumPy where PyTorch's kernel is elementwise.

The facts (PyTorch's TransformationHelper.h, DistributionsHelper.h, cpu/DistributionTemplates.h,
TensorFactories.cpp), checked value for value against torch 2.x on CPU:

- uniform: float32 takes the low 24 bits of one word, float64 the low 53 of a 64-bit draw, times
  2**-bits; `from + (to - from) * u` is one fused multiply-add (torch's AVX2 kernel).
- normal: a tensor of 16 or more values is filled with uniforms first, then Box-Muller turns each
  block of 16 into 16 normals (u1 = 1 - first 8, u2 = last 8); when the size is not a multiple of
  16 the last 16 are redrawn and redone. float32 runs PyTorch's AVX2 polynomials (avx_mathfun.py),
  float64 libm's log/cos/sin. Fewer than 16 values go one at a time through the scalar sampler,
  which draws two 53-bit uniforms for a pair and keeps the second sample for the next call (on
  the generator: it survives get_state/set_state).
- integers: a range below 2**32 takes one word modulo the range, a larger one a 64-bit draw.
- randperm: n below 2**32 / 20 swaps position i with i + word % (n - i) for i in order (one word
  each); larger n runs the inside-out shuffle on 64-bit draws.
- exponential, geometric, Cauchy and Bernoulli with a scalar p draw one 53-bit uniform each;
  log-normal is exp of the scalar normal sampler (so it shares the cached sample).

Layer L0: numpy, avx_mathfun and mt19937.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .avx_mathfun import log_ps, sincos_ps
from .mt19937 import MT19937

_TWO_PI_F32 = np.float32(2.0 * math.pi)
_SMALL_PERMUTATION = (2**32 - 1) // 20  # below it randperm takes one word per swap
_ROWS = 2048  # blocks of 16 per chunk of the float32 Box-Muller


def _dims(size: Any) -> tuple[int, ...]:
    if size is None:
        return ()
    if isinstance(size, (int, np.integer)):
        return (int(size),)
    return tuple(int(d) for d in size)


def _fma32(a: np.ndarray, b: Any, c: Any) -> np.ndarray:
    """float32 a * b + c rounded once (the float32 product is exact in float64)."""
    wide = np.multiply(a, np.float32(b), dtype=np.float64)
    wide += np.float32(c)
    return wide.astype(np.float32)


def _split(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    t = x * 134217729.0  # 2**27 + 1 (Veltkamp: x = hi + lo, each of 26 bits)
    hi = t - (t - x)
    return hi, x - hi


def _fma64(a: np.ndarray, b: float, c: float) -> np.ndarray:
    """float64 a * b + c rounded (almost always) once, as one FMA instruction: the product's
    rounding error (Dekker) and the sum's (Knuth) are added back before the last rounding."""
    a = np.asarray(a, np.float64)
    p = a * b
    ah, al = _split(a)
    bh, bl = _split(np.float64(b))
    err = ((ah * bh - p) + ah * bl + al * bh) + al * bl
    s = p + c
    back = s - p
    sum_err = (p - (s - back)) + (c - back)
    return s + (sum_err + err)


class Draws:
    """PyTorch's CPU samplers over one MT19937 engine, with the method names (and `size`
    positions) of numpy.random.Generator plus the dtype PyTorch would sample in.

    >>> d = Draws(MT19937(2147483647)); d.random(3, dtype=np.float32).round(4).tolist()
    [0.7081, 0.3542, 0.1054]
    """

    def __init__(self, engine: MT19937) -> None:
        self.engine = engine
        self.next_double_normal: float | None = None  # the scalar sampler's kept sample
        self.next_float_normal: float | None = None  # (PyTorch's state has it; no CPU op uses it)

    # -- the state, as numpy.random.Generator().bit_generator.state reads and sets it --

    @property
    def bit_generator(self) -> "Draws":
        """Itself: `.bit_generator.state` saves and restores, as NumPy's generators do."""
        return self

    @property
    def state(self) -> tuple:
        """The position (engine and cached samples), to assign back later."""
        return (self.engine.snapshot(), self.next_double_normal, self.next_float_normal)

    @state.setter
    def state(self, saved: tuple) -> None:
        self.engine.restore(saved[0])
        self.next_double_normal, self.next_float_normal = saved[1], saved[2]

    # -- uniform --

    def _unit(self, count: int, kind: np.dtype) -> np.ndarray:
        """`count` uniforms in [0, 1) as PyTorch's uniform_real_distribution<kind> makes them
        (float16 in float32 arithmetic, PyTorch's accumulate type)."""
        if kind == np.float64:
            bits = self.engine.random64(count) & np.uint64(2**53 - 1)
            return bits.astype(np.float64) * 2.0**-53
        digits = np.finfo(kind).nmant + 1
        words = self.engine.random32(count) & np.uint32(2**digits - 1)
        return words.astype(np.float32) * np.float32(2.0**-digits)

    def random(self, size: Any = None, *, dtype: Any = np.float64) -> np.ndarray:
        """Uniform [0, 1) samples (torch.rand).

        >>> Draws(MT19937(0)).random(2).shape
        (2,)
        """
        dims, kind = _dims(size), np.dtype(dtype)
        return self._unit(math.prod(dims), kind).reshape(dims).astype(kind, copy=False)

    def uniform(
        self, low: float = 0.0, high: float = 1.0, size: Any = None, *, dtype: Any = np.float64
    ) -> np.ndarray:
        """Uniform [low, high) samples (Tensor.uniform_): `low + (high - low) * u`, one rounding.

        >>> float(Draws(MT19937(0)).uniform(2.0, 2.0, 1)[0])
        2.0
        """
        dims, kind = _dims(size), np.dtype(dtype)
        u = self._unit(math.prod(dims), kind)
        if kind == np.float64:
            lo, hi = float(low), float(high)
            values = u if (lo, hi) == (0.0, 1.0) else _fma64(u, hi - lo, lo)
        else:
            lo32, hi32 = np.float32(kind.type(low)), np.float32(kind.type(high))
            values = _fma32(u, hi32 - lo32, lo32)
        return values.reshape(dims).astype(kind, copy=False)

    # -- normal --

    def _scalar_normal(self) -> float:
        """One sample of PyTorch's scalar normal sampler (Box-Muller on two 53-bit uniforms; the
        pair's second sample is kept for the next call)."""
        if self.next_double_normal is not None:
            value, self.next_double_normal = self.next_double_normal, None
            return value
        u1, u2 = self._unit(2, np.dtype(np.float64)).tolist()
        radius = math.sqrt(-2.0 * math.log1p(-u2))
        theta = 2.0 * math.pi * u1
        self.next_double_normal = radius * math.sin(theta)
        return radius * math.cos(theta)

    def _serial_normal(self, count: int, mean: float, std: float) -> np.ndarray:
        raw = np.array([self._scalar_normal() for _ in range(count)], np.float64)
        return raw if (mean, std) == (0.0, 1.0) else _fma64(raw, std, mean)

    def _box_muller(self, u: np.ndarray, kind: np.dtype, mean: float, std: float) -> np.ndarray:
        """Blocks of 16 uniforms -> 16 normals, as PyTorch's normal_fill_16 (AVX2 for float32)."""
        block = u.reshape(-1, 16)
        if kind == np.float32:
            out = np.empty_like(block)
            for start in range(0, len(block), _ROWS):  # (chunks that stay in the cache)
                part = block[start : start + _ROWS]
                radius = np.sqrt(np.float32(-2.0) * log_ps(np.float32(1.0) - part[:, :8]))
                sine, cosine = sincos_ps(_TWO_PI_F32 * part[:, 8:])
                out[start : start + _ROWS, :8] = _fma32(radius * cosine, std, mean)
                out[start : start + _ROWS, 8:] = _fma32(radius * sine, std, mean)
            return out.ravel()
        else:
            radius = np.sqrt(-2.0 * np.log(1.0 - block[:, :8]))
            theta = 2.0 * math.pi * block[:, 8:]
            first, second = radius * np.cos(theta), radius * np.sin(theta)
            if (mean, std) != (0.0, 1.0):
                first, second = _fma64(first, std, mean), _fma64(second, std, mean)
        return np.concatenate([first, second], axis=1).ravel()

    def normal(
        self, loc: float = 0.0, scale: float = 1.0, size: Any = None, *, dtype: Any = np.float64
    ) -> np.ndarray:
        """Normal samples (torch.randn, Tensor.normal_), by PyTorch's two paths (see above).

        >>> Draws(MT19937(0)).normal(0.0, 1.0, (2, 8), dtype=np.float32).dtype
        dtype('float32')
        """
        dims, kind = _dims(size), np.dtype(dtype)
        count = math.prod(dims)
        if count < 16:
            values = self._serial_normal(count, float(loc), float(scale))
            return values.reshape(dims).astype(kind)
        work = np.dtype(np.float64) if kind == np.float64 else np.dtype(np.float32)
        mean, std = work.type(loc), work.type(scale)
        u = self._unit(count, work if kind != np.float16 else kind)
        out = np.empty(count, work)
        whole = count - count % 16
        out[:whole] = self._box_muller(u[:whole], work, mean, std)
        if whole < count:  # the last 16 redrawn and redone
            out[count - 16 :] = self._box_muller(self._unit(16, work), work, mean, std)
        return out.reshape(dims).astype(kind, copy=False)

    def standard_normal(self, size: Any = None, *, dtype: Any = np.float64) -> np.ndarray:
        """Standard normal samples (torch.randn).

        >>> Draws(MT19937(0)).standard_normal(3).shape
        (3,)
        """
        return self.normal(0.0, 1.0, size, dtype=dtype)

    def lognormal(
        self, mean: float = 0.0, sigma: float = 1.0, size: Any = None, *, dtype: Any = np.float64
    ) -> np.ndarray:
        """exp of the scalar normal sampler, one value at a time (Tensor.log_normal_).

        >>> bool((Draws(MT19937(0)).lognormal(0.0, 1.0, 3) > 0).all())
        True
        """
        dims = _dims(size)
        values = np.exp(self._serial_normal(math.prod(dims), float(mean), float(sigma)))
        return values.reshape(dims).astype(dtype)

    # -- integers and permutations --

    def integers(
        self, low: int, high: int | None = None, size: Any = None, *, dtype: Any = np.int64
    ) -> np.ndarray:
        """Integers in [low, high) (torch.randint): a word modulo the range, or a 64-bit draw's
        when the range is 2**32 or more.

        >>> Draws(MT19937(0)).integers(3, 4, 2).tolist()
        [3, 3]
        """
        if high is None:
            low, high = 0, low
        dims, span = _dims(size), int(high) - int(low)
        count = math.prod(dims)
        if span >= 2**32:
            drawn = (self.engine.random64(count) % np.uint64(span)).astype(np.int64)
        else:
            drawn = (self.engine.random32(count) % np.uint32(span)).astype(np.int64)
        return (drawn + int(low)).reshape(dims).astype(dtype, copy=False)

    def full_range(self, size: Any, *, dtype: Any) -> np.ndarray:
        """Tensor.random_() with no bounds: [0, 2**mantissa] for floats, [0, max] for integers.

        >>> Draws(MT19937(0)).full_range(2, dtype=np.bool_).dtype
        dtype('bool')
        """
        dims, kind = _dims(size), np.dtype(dtype)
        count = math.prod(dims)
        if kind in (np.float64, np.int64):
            words = self.engine.random64(count)
        else:
            words = self.engine.random32(count).astype(np.uint64)
        if kind == np.bool_:
            return (words & np.uint64(1)).astype(bool).reshape(dims)
        top = 2 ** (np.finfo(kind).nmant + 1) + 1 if kind.kind == "f" else np.iinfo(kind).max + 1
        return (words % np.uint64(top)).astype(kind).reshape(dims)

    def permutation(self, n: int) -> np.ndarray:
        """A permutation of 0..n-1 as torch.randperm makes it (see above).

        >>> sorted(Draws(MT19937(0)).permutation(4).tolist())
        [0, 1, 2, 3]
        """
        n = int(n)
        if n < _SMALL_PERMUTATION:
            steps = self.engine.random32(max(n - 1, 0)) % np.arange(n, 1, -1, dtype=np.uint32)
            targets = (steps + np.arange(len(steps), dtype=np.uint32)).tolist()
            order = list(range(n))
            for i, j in enumerate(targets):  # (sequential: each swap sees the ones before)
                order[i], order[j] = order[j], order[i]
            return np.array(order, np.int64)
        picks = (self.engine.random64(n) % np.arange(1, n + 1, dtype=np.uint64)).tolist()
        out = [0] * n
        for i, z in enumerate(picks):  # inside-out: out[i] = out[z]; out[z] = i
            out[i] = out[z]
            out[z] = i
        return np.array(out, np.int64)

    # -- the other distributions of Tensor's in-place samplers --

    def exponential_rate(
        self, lambd: float, size: Any = None, *, dtype: Any = np.float64
    ) -> np.ndarray:
        """Exponential samples of rate `lambd` (Tensor.exponential_): -1/lambd * log1p(-u).

        >>> bool((Draws(MT19937(0)).exponential_rate(2.0, 3) >= 0).all())
        True
        """
        dims = _dims(size)
        u = self._unit(math.prod(dims), np.dtype(np.float64))
        return ((-1.0 / float(lambd)) * np.log1p(-u)).reshape(dims).astype(dtype)

    def exponential(
        self, scale: float = 1.0, size: Any = None, *, dtype: Any = np.float64
    ) -> np.ndarray:
        """Exponential samples of mean `scale` (NumPy's parametrisation; rate 1/scale).

        >>> Draws(MT19937(0)).exponential(1.0, 2).shape
        (2,)
        """
        return self.exponential_rate(1.0 / float(scale), size, dtype=dtype)

    def standard_exponential(self, size: Any = None, *, dtype: Any = np.float64) -> np.ndarray:
        """Exponential samples of rate 1 (what torch's multinomial races with).

        >>> Draws(MT19937(0)).standard_exponential(2).shape
        (2,)
        """
        return self.exponential_rate(1.0, size, dtype=dtype)

    def geometric(self, p: float, size: Any = None, *, dtype: Any = np.float64) -> np.ndarray:
        """Trials to the first success (Tensor.geometric_): ceil(log(u) / log1p(-p)).

        >>> bool((Draws(MT19937(0)).geometric(0.5, 3) >= 1).all())
        True
        """
        dims = _dims(size)
        u = self._unit(math.prod(dims), np.dtype(np.float64))
        with np.errstate(divide="ignore"):
            values = np.ceil(np.log(u) / math.log1p(-float(p)))
        return values.reshape(dims).astype(dtype)

    def cauchy(
        self, median: float = 0.0, sigma: float = 1.0, size: Any = None, *, dtype: Any = np.float64
    ) -> np.ndarray:
        """Cauchy samples (Tensor.cauchy_): median + sigma * tan(pi * (u - 1/2)).

        >>> Draws(MT19937(0)).cauchy(0.0, 1.0, 2).shape
        (2,)
        """
        dims = _dims(size)
        u = self._unit(math.prod(dims), np.dtype(np.float64))
        values = float(median) + float(sigma) * np.tan(math.pi * (u - 0.5))
        return values.reshape(dims).astype(dtype)

    def standard_cauchy(self, size: Any = None, *, dtype: Any = np.float64) -> np.ndarray:
        """Cauchy samples of median 0 and scale 1.

        >>> Draws(MT19937(0)).standard_cauchy(2).shape
        (2,)
        """
        return self.cauchy(0.0, 1.0, size, dtype=dtype)

    def bernoulli(self, p: Any, size: Any = None) -> np.ndarray:
        """Bernoulli draws (bool) of probability `p`: a float or a float64 array compares a 53-bit
        uniform, a float32 array a 24-bit one (PyTorch's bernoulli_distribution of p's type).

        >>> Draws(MT19937(0)).bernoulli(1.0, 3).tolist()
        [True, True, True]
        """
        chance = np.asarray(p)
        dims = _dims(size) if size is not None else chance.shape
        single = chance.dtype in (np.float32, np.float16)
        work: np.dtype = np.dtype(np.float32) if single else np.dtype(np.float64)
        u = self._unit(math.prod(dims), work).reshape(dims)
        return u < chance.astype(work, copy=False)


__all__ = ["Draws"]
