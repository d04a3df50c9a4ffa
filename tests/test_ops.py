"""Every registered primitive, driven from the rule table: gradcheck (orders 1 and 2, float64) over
broadcast shapes, the formula text, and dedicated tests at the non-differentiable points.

Adding a primitive without adding its cases to CASES makes `test_every_primitive_has_cases` fail.
"""

from __future__ import annotations

import numpy as np
import pytest

import tapegrad as tg
from helpers import distinct
import tapegrad.primitives.nn
import tapegrad.primitives.normalization
import tapegrad.primitives.pooling
from tapegrad.primitives import REGISTRY
from tapegrad.tape.plan import execution_order

P = REGISTRY
F64 = np.float64


# ---- inputs ------------------------------------------------------------------------------------
def normal(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape)


def positive(*shape, seed=0):
    return np.random.default_rng(seed).uniform(0.5, 2.0, shape)


def away(*shape, seed=0):
    """|v| in [0.3, 2] with a random sign: safely away from the kink at 0."""
    rng = np.random.default_rng(seed)
    return rng.uniform(0.3, 2.0, shape) * rng.choice([-1.0, 1.0], shape)


def conditioned(*shape, seed=0):
    """Square matrices (the last size, batched by the others) well away from singular: the
    identity times 3 plus noise of size 1/2."""
    n = shape[-1]
    return 3 * np.eye(n) + 0.5 * normal(*shape[:-1], n, n, seed=seed)


def separated(*shape, seed=0):
    """Square matrices whose symmetric parts have eigenvalues at least ~1 apart: diag(1, 3, 5,
    ...) / 2 plus noise of size 1/20 (the last size, batched by the others)."""
    n = shape[-1]
    return np.diag(np.arange(n) + 0.5) + 0.05 * normal(*shape[:-1], n, n, seed=seed)


def _eigh_square(a):
    """V diag(L^2) V^T: a function of both eigh outputs that no eigenvector sign changes."""
    values, vectors = tg.linalg.eigh(a)
    return (vectors * (values * values).unsqueeze(-2)) @ vectors.mT


def _left_projector(a):
    """U diag(S^2) U^T (A A^T through U and S): no sign of U's columns changes it."""
    u, s, _ = tg.linalg.svd(a, full_matrices=False)
    return ((u * (s * s).unsqueeze(-2)) @ u.mT).sum(-1) + u.abs().sum(-1)


def pair_distinct(sx, sy, seed=0):
    """Two arrays whose values (even after broadcasting against each other) never tie."""
    nx, ny = int(np.prod(sx)), int(np.prod(sy))
    vals = np.random.default_rng(seed).permutation(nx + ny) * 0.25 - (nx + ny) * 0.125 + 0.05
    return vals[:nx].reshape(sx), vals[nx:].reshape(sy)


class Case:
    """fn(*tensors) -> Tensor, with float64 inputs that require grad (unless const=True)."""

    def __init__(self, fn, *arrays, id, const=(), gc=None, smooth=True):
        self.fn, self.arrays, self.id = fn, arrays, id
        self.const = const  # indices of inputs that do not require grad
        self.gc = gc or {}  # gradcheck keyword arguments
        self.smooth = smooth

    def tensors(self):
        return tuple(
            tg.tensor(np.array(a, dtype=F64), requires_grad=i not in self.const)
            for i, a in enumerate(self.arrays)
        )


def binary_broadcast(fn, gen=normal, gen_y=None):
    """The broadcasting shapes every binary op is checked on."""
    gen_y = gen_y or gen
    shapes = [
        ((3, 4), (3, 4), "same"),
        ((3, 4), (4,), "row"),
        ((3, 4), (3, 1), "column"),
        ((), (2, 3), "scalar-left"),
        ((2, 3), (), "scalar-right"),
        ((2, 1, 3), (4, 1), "outer"),
    ]
    return [Case(fn, gen(*sx, seed=1), gen_y(*sy, seed=2), id=name) for sx, sy, name in shapes]


def binary_ties_free(fn):
    shapes = [
        ((3, 4), (3, 4), "same"),
        ((3, 4), (4,), "row"),
        ((3, 4), (3, 1), "column"),
        ((), (2, 3), "scalar-left"),
        ((2, 1, 3), (4, 1), "outer"),
    ]
    return [
        Case(fn, *pair_distinct(sx, sy, seed=3), id=name, smooth=False) for sx, sy, name in shapes
    ]


MASK = np.array(
    [[True, False, True, False], [False, False, True, True], [True, True, False, False]]
)


def _setitem(x, v, index):
    y = x * 1.0
    y[index] = v
    return y


F_CONV = tg.nn.functional_conv
F_POOL = tg.nn.functional_pooling
P_NN = tapegrad.primitives.nn
P_POOL = tapegrad.primitives.pooling
P_NORM = tapegrad.primitives.normalization
CONV_P = dict(stride=(1, 1), padding=(0, 0, 0, 0), dilation=(1, 1), groups=1)
POOL_P = dict(kernel_size=(2, 2), stride=(1, 2), padding=(0, 0, 0, 1), dilation=(1, 1))
_POOL_X = distinct(1, 2, 4, 5)
POOL_XO = (_POOL_X, P_POOL.max_pool2d(_POOL_X, **POOL_P))  # constants: x and its max-pool
AVG_P = dict(kernel_size=(2, 2), stride=(2, 1), padding=(0, 0, 0, 1), divisor=4.0)


CASES = {
    "add": binary_broadcast(lambda x, y: x + y)
    + [
        Case(lambda x: x + 2.0, normal(3), id="python-scalar"),
        Case(lambda x: 2.0 + x, normal(3), id="reflected"),
        Case(lambda x: x + x, normal(3), id="same-tensor-twice"),
    ],
    "sub": binary_broadcast(lambda x, y: x - y)
    + [Case(lambda x: 1.5 - x, normal(2, 2), id="reflected")],
    "mul": binary_broadcast(lambda x, y: x * y)
    + [
        Case(lambda x: x * x * x, normal(4), id="fan-in"),
        Case(lambda x: 3.0 * x, normal(2), id="reflected"),
    ],
    "div": binary_broadcast(lambda x, y: x / y, gen_y=away)
    + [Case(lambda x: np.full(3, 2.0) / x, away(3), id="reflected-array")],
    "neg": [Case(lambda x: -x, normal(3, 2), id="matrix"), Case(lambda x: -x, normal(), id="0-d")],
    "pow": binary_broadcast(lambda x, y: x**y, gen=positive, gen_y=normal)
    + [
        Case(lambda x: x**3, normal(4), id="cube-negative-base"),
        Case(lambda x: x**0.5, positive(4), id="sqrt"),
        Case(lambda x: x**-2, away(4), id="negative-exponent"),
        Case(lambda x: 2.0**x, normal(4), id="reflected"),
    ],
    "exp": [Case(tg.exp, normal(3, 4), id="matrix"), Case(lambda x: x.exp(), normal(), id="0-d")],
    "reciprocal": [Case(lambda x: 2.0 / x, positive(3, 4), id="number-over-tensor")],
    "log1p": [Case(lambda x: x.log1p(), positive(3, 4), id="matrix")],
    "log10": [Case(lambda x: x.log10(), positive(3, 4), id="matrix")],
    "contiguous": [
        Case(lambda x: x.t().contiguous() * x.t(), normal(3, 4), id="transposed"),
        Case(lambda x: x[:, ::2].contiguous().view(-1), normal(3, 4), id="strided-then-view"),
    ],
    "log2": [
        Case(tg.log2, positive(3, 4), id="matrix"),
        Case(lambda x: x.log2(), positive(), id="0-d"),
    ],
    # (piecewise: the inputs stay away from the jumps, where x / y is a whole number)
    "floor_divide": [
        Case(lambda x, y: (x // y) * x + y, distinct(3, 4), positive(4), id="times-x", smooth=False)
    ],
    "remainder": [
        Case(lambda x, y: x % y, normal(3, 4), positive(4) + 0.1, id="row"),
        Case(lambda x: 7.5 % x, positive(3), id="reflected"),
    ],
    "expm1": [Case(lambda x: x.expm1(), normal(3, 4), id="matrix")],
    "fill": [
        Case(lambda x: (x * 1).fill_(2.0) * x, normal(3), id="fill_-then-use", smooth=False),
        Case(lambda x: _zero_part(x), normal(4), id="zero_-of-a-view", smooth=False),
    ],
    "erf": [Case(tg.erf, normal(3, 4), id="matrix"), Case(lambda x: x.erf(), normal(), id="0-d")],
    # rounding: a zero gradient (finite differences agree away from the jumps: distinct() values
    # have fractional parts .05, .3, .55, .8)
    "floor": [Case(lambda x: x.floor() * x, distinct(3, 4), id="times-x", smooth=False)],
    "ceil": [Case(lambda x: tg.ceil(x) + x, distinct(3, 4), id="plus-x", smooth=False)],
    "trunc": [
        Case(lambda x: x.trunc() * x, distinct(3, 4), id="times-x", smooth=False),
        Case(lambda x: x.frac(), distinct(3, 4), id="frac", smooth=False),
    ],
    "round": [
        Case(lambda x: x.round() * x, distinct(3, 4), id="times-x", smooth=False),
        Case(
            lambda x: tg.round(x, decimals=1), distinct(5) * 0.3 + 0.01, id="decimals", smooth=False
        ),
    ],
    "log": [
        Case(tg.log, positive(3, 4), id="matrix"),
        Case(lambda x: x.log(), positive(), id="0-d"),
    ],
    "sin": [Case(tg.sin, normal(3, 4), id="matrix")],
    "cos": [Case(tg.cos, normal(3, 4), id="matrix")],
    "tan": [Case(tg.tan, normal(3, 4) * 0.4, id="matrix")],
    "tanh": [Case(tg.tanh, normal(3, 4), id="matrix")],
    "sigmoid": [
        Case(tg.sigmoid, normal(3, 4), id="matrix"),
        Case(tg.sigmoid, np.array([-30.0, -5.0, 5.0, 30.0]), id="large"),
    ],
    "relu": [Case(tg.relu, away(3, 4), id="matrix", smooth=False)],
    "leaky_relu": [
        Case(lambda x: tg.nn.functional.leaky_relu(x, 0.1), away(3, 4), id="0.1", smooth=False),
        Case(lambda x: tg.nn.LeakyReLU(-1.5)(x), away(8), id="steep-negative", smooth=False),
    ],
    "sqrt": [Case(tg.sqrt, positive(3, 4), id="matrix")],
    "abs": [
        Case(tg.abs, away(3, 4), id="matrix", smooth=False),
        Case(lambda x: abs(x), away(5), id="builtin-abs", smooth=False),
    ],
    "sign": [Case(lambda x: tg.sign(x) * x, away(3, 4), id="times-x", smooth=False)],
    # transcendental (primitives/transcendental.py), each inside its domain
    "sinh": [Case(tg.sinh, normal(3, 4), id="matrix")],
    "cosh": [Case(lambda x: x.cosh(), normal(3, 4), id="matrix")],
    "asinh": [Case(tg.arcsinh, normal(3, 4), id="matrix")],
    "acosh": [Case(lambda x: x.acosh(), positive(3, 4) + 0.7, id="above-1")],
    "atanh": [Case(tg.atanh, 0.4 * normal(3, 4), id="inside")],
    "asin": [Case(tg.asin, 0.4 * normal(3, 4), id="inside")],
    "acos": [Case(lambda x: x.arccos(), 0.4 * normal(3, 4), id="inside")],
    "atan": [Case(tg.atan, normal(3, 4), id="matrix")],
    "exp2": [Case(tg.exp2, normal(3, 4), id="matrix")],
    "erfc": [Case(tg.erfc, normal(3, 4) * 2, id="both-sides-of-0.5")],
    "sinc": [Case(tg.sinc, away(3, 4), id="away-from-0")],
    "logit": [
        Case(tg.logit, positive(3, 4) / 2.5, id="inside"),
        Case(lambda x: x.logit(eps=0.2), np.array([0.05, 0.3, 0.6, 0.95]), id="eps", smooth=False),
    ],
    "nan_to_num": [Case(lambda x: x.nan_to_num() * x, normal(3, 4), id="finite")],
    # special functions (primitives/special_functions.py): inputs away from poles and edges
    "lgamma": [
        Case(tg.lgamma, positive(3, 4) * 2, id="positive"),
        Case(lambda x: x.lgamma(), -positive(5) * 0.4 - 0.1, id="between-0-and--1"),
    ],
    "digamma": [
        Case(tg.digamma, positive(3, 4), id="positive"),
        Case(lambda x: x.digamma(), -positive(5) * 0.4 - 1.1, id="between--1-and--2"),
    ],
    "polygamma": [
        Case(lambda x: tg.polygamma(1, x), positive(3, 4), id="trigamma"),
        Case(lambda x: x.polygamma(3), positive(4) + 3, id="n3"),
        Case(lambda x: x.polygamma(2), -positive(4) * 0.4 - 2.1, id="negative"),
    ],
    "zeta": [
        Case(
            lambda s, q: tg.special.zeta(s, q),
            positive(3, 1) + 1.5,
            positive(4),
            id="q",
            const=(0,),
        )
    ],
    "erfinv": [
        Case(tg.erfinv, normal(3, 4) * 0.3, id="central"),
        Case(lambda x: x.erfinv(), np.array([0.6, -0.9, 0.99, -0.999]), id="tails"),
    ],
    "erfcx": [
        Case(tg.special.erfcx, normal(3, 4) * 3, id="both-signs"),
        Case(tg.special.erfcx, positive(4) + 11.0, id="asymptotic"),
    ],
    "ndtr": [Case(tg.special.ndtr, normal(3, 4) * 3, id="matrix")],
    "ndtri": [
        Case(tg.special.ndtri, positive(3, 4) / 2.1, id="inside"),
        Case(tg.special.ndtri, np.array([1e-4, 1e-3, 0.999]), id="tails"),
    ],
    "log_ndtr": [
        Case(tg.special.log_ndtr, normal(3, 4) * 3, id="matrix"),
        Case(tg.special.log_ndtr, -positive(4) * 10 - 20, id="far-left"),
    ],
    "i0": [
        Case(tg.i0, normal(3, 4) * 3, id="series"),
        Case(lambda x: x.i0(), away(4) * 15 + np.sign(away(4)) * 5, id="asymptotic"),
    ],
    "i1": [
        Case(tg.special.i1, away(3, 4) * 3, id="series"),
        Case(tg.special.i1, away(4) * 15 + np.sign(away(4)) * 5, id="asymptotic"),
    ],
    "i0e": [
        Case(tg.special.i0e, away(3, 4) * 3, id="series"),
        Case(tg.special.i0e, away(4) * 15 + np.sign(away(4)) * 5, id="asymptotic"),
    ],
    "i1e": [
        Case(tg.special.i1e, away(3, 4) * 3, id="series"),
        Case(tg.special.i1e, away(4) * 15 + np.sign(away(4)) * 5, id="asymptotic"),
    ],
    "entr": [Case(tg.special.entr, positive(3, 4), id="positive")],
    "gammainc": [
        Case(tg.special.gammainc, positive(3, 1) * 2, positive(4) * 2, id="x", const=(0,)),
        Case(tg.special.gammainc, positive(3) + 1, positive(3) * 5 + 3, id="fraction", const=(0,)),
    ],
    "gammaincc": [
        Case(tg.special.gammaincc, positive(3, 1) * 2, positive(4) * 2, id="x", const=(0,)),
        Case(tg.special.gammaincc, positive(3) + 1, positive(3) * 5 + 3, id="fraction", const=(0,)),
    ],
    "xlog1py": binary_broadcast(tg.special.xlog1py, gen_y=positive)
    + [Case(lambda y: tg.special.xlog1py(2.0, y), positive(3), id="number-x")],
    "atan2": binary_broadcast(tg.atan2),
    "hypot": binary_broadcast(lambda x, y: x.hypot(y)),
    "logaddexp": binary_broadcast(tg.logaddexp),
    "logaddexp2": binary_broadcast(lambda x, y: x.logaddexp2(y)),
    "xlogy": binary_broadcast(tg.xlogy, gen_y=positive)
    + [Case(lambda y: tg.xlogy(2.0, y), positive(3), id="number-x")],
    "fmod": [
        Case(tg.fmod, normal(3, 4) * 0.3, positive(4) + 1.0, id="below-1"),
        Case(
            lambda x, y: x.fmod(y), -positive(3, 1) * 0.1 - 2.7, positive(2) * 0.1 + 1.7, id="neg"
        ),
    ],
    "copysign": [Case(tg.copysign, away(3, 4), away(4, seed=1), id="row", const=(1,))],
    "fmax": binary_ties_free(tg.fmax),
    "fmin": binary_ties_free(lambda x, y: x.fmin(y)),
    "maximum": binary_ties_free(tg.maximum)
    + [Case(lambda x: x.maximum(0.1), distinct(6, offset=0.01), id="scalar", smooth=False)],
    "minimum": binary_ties_free(tg.minimum)
    + [Case(lambda x: x.minimum(0.1), distinct(6, offset=0.01), id="scalar", smooth=False)],
    "clip": [
        Case(lambda x: x.clip(-0.4, 0.4), distinct(3, 4), id="both", smooth=False),
        Case(lambda x: tg.clip(x, min=-0.4), distinct(3, 4), id="min", smooth=False),
        Case(lambda x: tg.clamp(x, max=0.4), distinct(3, 4), id="max", smooth=False),
    ],
    "where": [
        Case(lambda x, y: tg.where(MASK, x, y), normal(3, 4), normal(3, 4), id="same"),
        Case(lambda x, y: tg.where(MASK, x, y), normal(4), normal(3, 1), id="broadcast"),
        Case(lambda x: x.where(tg.tensor(MASK), 0.0), normal(3, 4), id="method"),
        Case(lambda x: tg.where(MASK[0], 1.0, x), normal(4), id="scalar-x"),
    ],
    "cast": [
        Case(lambda x: P["cast"](x, dtype=np.dtype(F64)), normal(3), id="primitive"),
        Case(
            lambda x: x.astype(tg.float32).astype(tg.float64) * 2,
            normal(3),
            id="via-float32",
            gc=dict(eps=1e-3, atol=1e-3, rtol=1e-2),
            smooth=False,
        ),
    ],
    "reshape": [
        Case(lambda x: x.reshape(4, 3) * normal(4, 3), normal(3, 4), id="varargs"),
        Case(lambda x: x.reshape((2, -1)), normal(3, 4), id="tuple"),
        Case(lambda x: x.view(-1), normal(2, 3), id="view"),
        Case(lambda x: x.flatten(), normal(2, 3, 2), id="flatten"),
        Case(lambda x: x.unsqueeze(1).squeeze(), normal(3), id="unsqueeze-squeeze"),
        Case(lambda x: x.squeeze(0), normal(1, 3), id="squeeze-axis"),
    ],
    "transpose": [
        Case(lambda x: x.T * normal(4, 3), normal(3, 4), id="T"),
        Case(lambda x: x.transpose(0, 1) * normal(4, 3), normal(3, 4), id="swap"),
        Case(lambda x: x.permute(2, 0, 1) * normal(4, 2, 3), normal(2, 3, 4), id="permute"),
    ],
    "expand": [
        Case(lambda x: x.expand(4, 3) * normal(4, 3), normal(3), id="row"),
        Case(lambda x: x.expand((3, 4)) * normal(3, 4), normal(3, 1), id="column"),
        Case(
            lambda x: tg.broadcast_to(x, (2, 3, 4)) * normal(2, 3, 4), normal(1, 4), id="new-axis"
        ),
    ],
    "getitem": [
        Case(lambda x: x[1], normal(3, 4), id="int"),
        Case(lambda x: x[:, 1:3], normal(3, 4), id="slice"),
        Case(lambda x: x[None, ..., ::2], normal(3, 4), id="none-ellipsis-step"),
        Case(lambda x: x[-1, -2], normal(3, 4), id="negative-ints"),
        Case(lambda x: x[[0, 0, 2]], normal(3, 4), id="repeated-list"),
        Case(lambda x: x[np.array([[0, 1], [2, 0]])], normal(3, 4), id="int-array-2d"),
        Case(lambda x: x[tg.tensor([2, 0, 2])], normal(3, 4), id="tensor-index"),
        Case(lambda x: x[tg.tensor(1)], normal(3, 4), id="0-d-tensor-index"),
        Case(lambda x: x[[0, 1, 1], [3, 2, 2]], normal(3, 4), id="pairs"),
        Case(lambda x: x[MASK], normal(3, 4), id="bool-mask"),
        Case(lambda x: x[tg.tensor(MASK)], normal(3, 4), id="bool-tensor-mask"),
        Case(lambda x: x[:, [3, 3, 0]], normal(3, 4), id="slice-and-list"),
        Case(lambda x: tg.split(x, 2, axis=1)[1], normal(3, 4), id="split"),
    ],
    "scatter_add": [
        Case(
            lambda x: P["scatter_add"](x, shape=(5,), index=np.array([0, 0, 3])),
            normal(3),
            id="repeated",
        ),
        Case(
            lambda x: P["scatter_add"](x, shape=(3, 4), index=(slice(None), 1)),
            normal(3),
            id="basic",
        ),
    ],
    "index_put": [
        Case(lambda x, v: _setitem(x, v, 1), normal(3, 4), normal(4), id="row"),
        Case(
            lambda x, v: _setitem(x, v, (slice(None), 2)),
            normal(3, 4),
            normal(),
            id="broadcast-scalar",
        ),
        Case(lambda x, v: _setitem(x, v, MASK), normal(3, 4), normal(6), id="mask"),
        Case(lambda x, v: _setitem(x, v, ...), normal(3, 4), normal(4), id="ellipsis"),
        Case(
            lambda x, v: _setitem(x, v, 0),
            normal(2, 3),
            normal(1, 3),
            id="value-with-extra-leading-1",
        ),
        Case(
            lambda x, v: _setitem(x, v, ...),
            normal(2, 3),
            normal(1, 1, 3),
            id="value-with-extra-leading-1s-broadcast",
        ),
        Case(
            lambda x, v: P["index_put"](x, v, index=np.array([2, 0])),
            normal(3, 2),
            normal(2, 2),
            id="primitive",
        ),
    ],
    "concatenate": [
        Case(lambda a, b: tg.cat([a, b]), normal(2, 3), normal(4, 3), id="axis0"),
        Case(lambda a, b: tg.concatenate([a, b], axis=-1), normal(2, 3), normal(2, 1), id="axis-1"),
        Case(
            lambda a, b, c: tg.cat([a, b, c], dim=1),
            normal(2, 1),
            normal(2, 2),
            normal(2, 3),
            const=(1,),
            id="three-one-const",
        ),
        Case(lambda a, b: tg.stack([a, b], axis=1), normal(2, 3), normal(2, 3), id="stack"),
    ],
    "matmul_nt": [Case(lambda a, b: P["matmul_nt"](a, b), normal(3, 4), normal(2, 4), id="2d")],
    "matmul_tn": [Case(lambda a, b: P["matmul_tn"](a, b), normal(4, 3), normal(4, 2), id="2d")],
    "mv": [Case(lambda a, v: a @ v, normal(3, 4), normal(4), id="matrix-vector")],
    "dot": [
        Case(lambda a, b: a @ b, normal(4), normal(4), id="vectors"),
        Case(lambda a, b: tg.dot(a, b), normal(3), normal(3), id="function"),
    ],
    "matmul": [
        Case(lambda a, b: a @ b, normal(3, 4), normal(4, 2), id="2d@2d"),
        Case(lambda a, b: a @ b, normal(4), normal(4, 2), id="1d@2d"),
        Case(lambda a, b: a @ b, normal(2, 3, 4), normal(2, 4, 2), id="batched"),
        Case(lambda a, b: a @ b, normal(2, 3, 4), normal(4, 2), id="batched@2d"),
        Case(lambda a, b: a @ b, normal(3, 4), normal(2, 4, 2), id="2d@batched"),
        Case(lambda a, b: a @ b, normal(2, 1, 3, 4), normal(3, 4, 2), id="batch-broadcast"),
        Case(lambda a, b: a @ b, normal(4), normal(2, 4, 3), id="1d@batched"),
        Case(lambda a, b: a @ b, normal(2, 3, 4), normal(4), id="batched@1d"),
        Case(lambda a, b: tg.matmul(a, b), normal(3, 4), normal(4, 2), id="function"),
    ],
    # square systems (primitives/linear_systems.py): well-conditioned inputs, SPD for cholesky
    "inv": [
        Case(lambda a: tg.linalg.inv(a), conditioned(3), id="3x3"),
        Case(lambda a: a.inverse(), conditioned(2, 3), id="batched-method"),
    ],
    "det": [
        Case(lambda a: tg.linalg.det(a), conditioned(3), id="3x3"),
        Case(lambda a: a.det(), conditioned(2, 2), id="batched-method"),
    ],
    "logabsdet": [
        Case(lambda a: tg.linalg.slogdet(a).logabsdet, conditioned(3), id="slogdet"),
        Case(lambda a: tg.logdet(a), conditioned(2, 3), id="logdet-batched"),
    ],
    "solve": [
        Case(lambda a, b: tg.linalg.solve(a, b), conditioned(3), normal(3, 2), id="matrix"),
        Case(lambda a, b: tg.linalg.solve(a, b), conditioned(2, 3), normal(2, 3), id="vectors"),
        Case(lambda a, b: tg.linalg.solve(a, b), conditioned(2, 3), normal(3, 2), id="broadcast"),
        Case(
            lambda a, b: tg.linalg.solve(a, b, left=False), conditioned(3), normal(2, 3), id="right"
        ),
    ],
    "solve_triangular": [
        Case(
            lambda a, b: tg.linalg.solve_triangular(a, b, upper=True),
            conditioned(3),
            normal(3, 2),
            id="upper",
        ),
        Case(
            lambda a, b: tg.linalg.solve_triangular(a, b, upper=False, left=False),
            conditioned(2, 3),
            normal(2, 2, 3),
            id="lower-right",
        ),
        Case(
            lambda a, b: tg.linalg.solve_triangular(a, b, upper=False, unitriangular=True),
            conditioned(3),
            normal(3, 1),
            id="unitriangular",
        ),
    ],
    "cholesky": [
        Case(lambda a: tg.linalg.cholesky(a @ a.mT), conditioned(3), id="spd"),
        Case(lambda a: tg.linalg.cholesky(a @ a.mT, upper=True), conditioned(2, 3), id="upper"),
    ],
    # symmetric eigendecomposition (primitives/decompositions.py): well-separated eigenvalues
    "eigvalsh": [
        Case(lambda a: tg.linalg.eigvalsh(a + a.mT), separated(3), id="lower"),
        Case(lambda a: tg.linalg.eigh(a + a.mT, "U").eigenvalues, separated(2, 3), id="upper"),
    ],
    "eigh_vectors": [
        Case(lambda a: _eigh_square(a + a.mT), separated(3), id="gauge-free"),
        Case(lambda a: tg.linalg.eigh(a + a.mT).eigenvectors.abs(), separated(2, 3), id="abs"),
    ],
    # the SVD (distinct singular values: the generic case; U, Vh through sign-free functions)
    "svdvals": [
        Case(lambda a: tg.linalg.svdvals(a), normal(3, 2), id="tall"),
        Case(lambda a: tg.linalg.matrix_norm(a, "nuc"), normal(2, 2, 3), id="nuclear"),
    ],
    "svd_u": [
        Case(lambda a: _left_projector(a), normal(4, 3), id="tall"),
        Case(lambda a: _left_projector(a), normal(2, 2, 3), id="wide"),
    ],
    "pinv": [
        Case(lambda a: tg.linalg.pinv(a), normal(4, 3), id="tall"),
        Case(lambda a: tg.linalg.pinv(a), normal(2, 2, 3), id="wide"),
        Case(lambda a: tg.linalg.pinv(a + a.mT, hermitian=True), conditioned(3), id="hermitian"),
    ],
    "svd_vh": [
        Case(lambda a: tg.linalg.svd(a, full_matrices=False).Vh.abs(), normal(4, 3), id="tall"),
        Case(lambda a: tg.linalg.svd(a, full_matrices=False).Vh.abs(), normal(2, 3), id="wide"),
    ],
    # QR (primitives/factorizations.py): Q and R as LAPACK signs them, tall, square and wide
    "qr_q": [
        Case(lambda a: tg.linalg.qr(a).Q, normal(4, 3), id="tall"),
        Case(lambda a: tg.linalg.qr(a, mode="complete").Q, normal(2, 3, 3), id="square-complete"),
        Case(lambda a: tg.linalg.qr(a).Q, normal(2, 3, 5), id="wide"),
    ],
    "qr_r": [
        Case(lambda a: tg.linalg.qr(a).R, normal(2, 4, 2), id="tall"),
        Case(lambda a: a.qr().R, normal(3, 3), id="square-method"),
        Case(lambda a: tg.linalg.qr(a).R, normal(2, 4), id="wide"),
    ],
    # LU (primitives/factorizations.py): square through lu_unpivoted, tall and wide composed
    "lu_unpivoted": [
        Case(lambda a: tg.linalg.lu_factor(a).LU, normal(3, 3), id="packed"),
        Case(
            lambda a: (lambda r: r.L.sin().sum(-2) + r.U[..., 0, :])(tg.linalg.lu(a)),
            normal(2, 4, 3),
            id="tall",
        ),
        Case(lambda a: (lambda r: r.L.sin() @ r.U)(tg.linalg.lu(a)), normal(3, 5), id="wide"),
        Case(lambda a: tg.lu(a)[0], normal(2, 3, 3), id="tg.lu"),
    ],
    "lu_permutation": [  # (P is piecewise constant: the gradient is that of P L U's other factors)
        Case(lambda a: (lambda r: r.P @ r.L @ r.U)(tg.linalg.lu(a)), normal(2, 3, 3), id="PLU"),
    ],
    # the matrix exponential (primitives/matrix_functions.py); "squared": a norm past theta_13
    "matrix_exp": [
        Case(lambda a: tg.linalg.matrix_exp(a), normal(3, 3), id="3x3"),
        Case(lambda a: a.matrix_exp(), normal(2, 2, 2), id="batched-method"),
        Case(lambda a: tg.matrix_exp(a), 3 * normal(3, 3), id="squared"),
    ],
    "tanh_backward": [
        Case(lambda g, y: P["tanh_backward"](g, y), normal(3, 2), normal(3, 2), id="same"),
        Case(lambda g, y: P["tanh_backward"](g, y), normal(3, 2), normal(2), id="broadcast"),
    ],
    "sigmoid_backward": [
        Case(lambda g, y: P["sigmoid_backward"](g, y), normal(3, 2), normal(3, 2), id="same")
    ],
    "mse": [
        Case(lambda x, y: tg.nn.functional.mse_loss(x, y), normal(3, 4), normal(3, 4), id="mean"),
        Case(
            lambda x, y: tg.nn.functional.mse_loss(x, y, reduction="sum"),
            normal(5),
            normal(5, seed=1),
            id="sum",
        ),
        Case(lambda x, y: P["mse"](x, y), normal(3, 4), normal(4, seed=1), id="broadcast"),
        Case(lambda x, y: P["mse"](x, y), normal(), normal(seed=1), id="0-d"),
    ],
    "mse_backward": [
        Case(
            lambda g, x, y: P["mse_backward"](g, x, y, scale=2 / 12),
            normal(),
            normal(3, 4),
            normal(3, 4, seed=1),
            id="mean",
        ),
        Case(
            lambda g, x, y: P["mse_backward"](g, x, y, scale=-2.0),
            normal(3, 1),
            normal(3, 4),
            normal(4, seed=1),
            id="broadcast",
        ),
    ],
    "gelu": [
        Case(lambda x: tg.nn.functional.gelu(x), normal(3, 4), id="matrix"),
        Case(lambda x: tg.nn.functional.gelu(x), normal(), id="0-d"),
    ],
    "gelu_backward": [
        Case(lambda g, x: P["gelu_backward"](g, x), normal(3, 2), normal(3, 2), id="same")
    ],
    # the recurrent cells: every output row (state and workspace) differentiated; a state with
    # fewer leading axes than the gates (broadcast), or fewer rows than the output (an initial one)
    "lstm_cell": [
        Case(lambda a, s: P["lstm_cell"](a, s), normal(3, 8), normal(7, 3, 2, seed=1), id="step"),
        Case(lambda a, s: P["lstm_cell"](a, s), normal(8), normal(2, 3, 2, seed=1), id="bcast"),
    ],
    "gru_cell": [
        Case(
            lambda x, y, s: P["gru_cell"](x, y, s),
            normal(3, 6),
            normal(3, 6, seed=1),
            normal(4, 3, 2, seed=2),
            id="step",
        ),
        Case(
            lambda x, y, s: P["gru_cell"](x, y, s),
            normal(6),
            normal(3, 6, seed=1),
            normal(1, 3, 2, seed=2),
            id="bcast",
        ),
    ],
    "addmm_nt": [
        Case(
            lambda c, x, w: P["addmm_nt"](c, x, w),
            normal(3, 4),
            normal(3, 5),
            normal(4, 5),
            id="2d",
        ),
        Case(
            lambda c, x, w: P["addmm_nt"](c, x, w),
            normal(4),
            normal(2, 3, 5, seed=1),
            normal(4, 5, seed=2),
            id="bcast",
        ),
    ],
    "linear": [
        Case(
            lambda x, w, b: tg.nn.functional.linear(x, w, b),
            normal(5, 3),
            normal(4, 3),
            normal(4),
            id="2d",
        ),
        Case(
            lambda x, w, b: tg.nn.functional.linear(x, w, b),
            normal(3),
            normal(4, 3),
            normal(4),
            id="1d",
        ),
        Case(
            lambda x, w, b: tg.nn.functional.linear(x, w, b),
            normal(2, 5, 3),
            normal(4, 3),
            normal(4),
            id="batched",
        ),
    ],
    "sum": [
        Case(lambda x: x.sum(), normal(3, 4), id="all"),
        Case(lambda x: x.sum(axis=0), normal(3, 4), id="axis0"),
        Case(lambda x: x.sum(dim=-1, keepdim=True), normal(3, 4), id="dim-keepdim"),
        Case(lambda x: x.sum((0, 2)), normal(2, 3, 4), id="two-axes"),
        Case(lambda x: x.sum(), normal(), id="0-d"),
        Case(lambda x: tg.sum(x, 1, keepdims=True), normal(2, 3, 2), id="function"),
    ],
    "mean": [
        Case(lambda x: x.mean(), normal(3, 4), id="all"),
        Case(lambda x: x.mean(axis=0), normal(3, 4), id="axis0"),
        Case(lambda x: x.mean(dim=-1, keepdim=True), normal(3, 4), id="dim-keepdim"),
        Case(lambda x: x.mean((0, 2)), normal(2, 3, 4), id="two-axes"),
        Case(lambda x: x.mean(), normal(), id="0-d"),
        Case(lambda x: tg.mean(x, 1, keepdims=True), normal(2, 3, 2), id="function"),
    ],
    "max": [
        Case(lambda x: x.max(), distinct(3, 4), id="all", smooth=False),
        Case(lambda x: x.max(axis=1), distinct(3, 4), id="axis1", smooth=False),
        Case(lambda x: x.amax(0, keepdims=True), distinct(3, 4), id="keepdims", smooth=False),
        Case(lambda x: tg.amax(x, dim=(0, 2)), distinct(2, 3, 2), id="two-axes", smooth=False),
    ],
    "min": [
        Case(lambda x: x.min(), distinct(3, 4), id="all", smooth=False),
        Case(lambda x: x.min(axis=-1), distinct(3, 4), id="axis-1", smooth=False),
        Case(lambda x: tg.amin(x, 0, keepdims=True), distinct(3, 4), id="keepdims", smooth=False),
    ],
    "prod": [
        Case(lambda x: x.prod(), away(2, 3), id="all"),
        Case(lambda x: x.prod(axis=1), away(3, 4), id="axis1"),
        Case(lambda x: x.prod(0, keepdims=True), away(3, 2), id="keepdims"),
    ],
    "cumsum": [
        Case(lambda x: x.cumsum(0), normal(3, 4), id="dim0"),
        Case(lambda x: x.cumsum(dim=-1), normal(3, 4), id="dim-last"),
        Case(lambda x: tg.cumsum(x, 1), normal(2, 3, 2), id="function-3d"),
        Case(lambda x: x.cumsum(0), normal(), id="0-d"),
    ],
    "cumprod": [
        Case(lambda x: x.cumprod(0), normal(3, 4), id="dim0"),
        Case(lambda x: x.cumprod(dim=-1), normal(3, 4), id="dim-last"),
        Case(lambda x: tg.cumprod(x, 1), normal(2, 3, 2), id="function-3d"),
        Case(lambda x: x.cumprod(0), normal(), id="0-d"),
        Case(
            lambda x: x.cumprod(1),
            np.array([[1.5, 0.0, -2.0, 0.0], [0.0, 2.0, 0.5, 1.0]]),
            id="zeros",
        ),
    ],
    "einsum": [
        Case(lambda a, b: tg.einsum("ij,jk->ik", a, b), normal(2, 3), normal(3, 4), id="matmul"),
        Case(lambda a, b: tg.einsum("ij,jk", [a, b]), normal(2, 3), normal(3, 2), id="implicit"),
        Case(lambda a: tg.einsum("ii", a), normal(3, 3), id="trace"),
        Case(lambda a: tg.einsum("ii->i", a), normal(3, 3), id="diagonal"),
        Case(lambda a, v: tg.einsum("iij,j->i", a, v), normal(2, 2, 3), normal(3), id="diag-dot"),
        Case(lambda a: tg.einsum("ij->i", a), normal(3, 4), id="sum-own-index"),
        Case(lambda a, b: tg.einsum("i,j->ij", a, b), normal(3), normal(2), id="outer"),
        Case(lambda a, b: tg.einsum("ij,ij->i", a, b), normal(3, 1), normal(3, 4), id="size-1"),
        Case(
            lambda a, b: tg.einsum("...ij,...jk->...ik", a, b),
            normal(2, 1, 2, 3),
            normal(4, 3, 2),
            id="ellipsis-broadcast",
        ),
        Case(
            lambda a, b, c: tg.einsum("ij,jk,kl->il", a, b, c),
            normal(2, 3),
            normal(3, 2),
            normal(2, 2),
            id="three",
        ),
        Case(lambda a: tg.einsum("...->", a), normal(2, 3), id="ellipsis-sum"),
    ],
    "logsumexp": [
        Case(lambda x: x.logsumexp(), normal(3, 4), id="all"),
        Case(lambda x: x.logsumexp(axis=1), normal(3, 4), id="axis1"),
        Case(lambda x: x.logsumexp(-1, keepdims=True), normal(3, 4), id="keepdims"),
        Case(lambda x: x.logsumexp(1), normal(2, 3) * 300, id="large"),
    ],
    # attention (more in test_attention.py)
    "scaled_dot_product_attention": [
        Case(
            lambda q, k, v: tg.nn.functional.scaled_dot_product_attention(q, k, v),
            normal(2, 3, 4),
            normal(2, 5, 4, seed=1),
            normal(2, 5, 2, seed=2),
            id="plain",
        ),
        Case(
            lambda q, k, v, m: tg.nn.functional.scaled_dot_product_attention(q, k, v, m),
            normal(3, 4),
            normal(3, 4, seed=1),
            normal(3, 2, seed=2),
            normal(3, 3, seed=3),
            id="float-mask",
        ),
        Case(
            lambda q, k, v: tg.nn.functional.scaled_dot_product_attention(
                q, k, v, is_causal=True, scale=0.7
            ),
            normal(4, 2),
            normal(3, 2, seed=1),
            normal(3, 3, seed=2),
            id="causal-scaled",
        ),
    ],
    # convolution and pooling (more in test_conv.py and test_pooling.py)
    "normalize": [
        Case(
            lambda x: P_NORM.normalize(x, axes=(0, 2, 3), eps=1e-5) * normal(4, 3, 2, 2, seed=1),
            normal(4, 3, 2, 2),
            id="batch-norm-axes",
        ),
        Case(
            lambda x: P_NORM.normalize(x, axes=(1,), eps=0.1) ** 3,
            normal(3, 5),
            id="layer-norm-axis-cubed",
        ),
        Case(lambda x: P_NORM.normalize(x, axes=(0, 1), eps=1e-3), normal(2, 3), id="all-axes"),
    ],
    "affine_normalize": [
        Case(
            lambda x, w, b: P_NORM.affine_normalize(x, w, b, axes=(0, 2, 3), eps=1e-5) ** 2,
            normal(4, 3, 2, 2),
            positive(1, 3, 1, 1, seed=1),
            normal(1, 3, 1, 1, seed=2),
            id="batch-norm-axes-squared",
        ),
        Case(
            lambda x, w, b: P_NORM.affine_normalize(x, w, b, axes=(0,), eps=1e-3) ** 3,
            normal(5, 3),
            positive(3, seed=1),
            normal(3, seed=2),
            id="channels-last-cubed",
        ),
    ],
    "conv2d": [
        Case(
            lambda x, w, b: F_CONV.conv2d(x, w, b),
            normal(2, 2, 4, 3),
            normal(3, 2, 2, 2),
            normal(3),
            id="plain",
        ),
        Case(
            lambda x, w: F_CONV.conv2d(x, w, stride=(2, 1), padding=1, dilation=(1, 2), groups=2),
            normal(1, 4, 5, 5),
            normal(2, 2, 2, 2),
            id="strided-grouped",
        ),
    ],
    "conv2d_input_grad": [
        Case(
            lambda g, w: P_NN.conv2d_input_grad(g, w, input_shape=(2, 2, 4, 3), **CONV_P),
            normal(2, 3, 3, 2),
            normal(3, 2, 2, 2),
            id="plain",
        )
    ],
    "conv2d_weight_grad": [
        Case(
            lambda g, x: P_NN.conv2d_weight_grad(g, x, weight_shape=(3, 2, 2, 2), **CONV_P),
            normal(2, 3, 3, 2),
            normal(2, 2, 4, 3),
            id="plain",
        )
    ],
    "max_pool2d": [
        Case(lambda x: F_POOL.max_pool2d(x, 2), distinct(2, 2, 4, 4), id="2x2", smooth=False),
        Case(
            lambda x: F_POOL.max_pool2d(x, 3, 2, 1, ceil_mode=True),
            distinct(1, 2, 5, 6),
            id="padded-ceil",
            smooth=False,
        ),
    ],
    "max_pool2d_backward": [
        Case(
            lambda g: P_POOL.max_pool2d_backward(g, *POOL_XO, **POOL_P), normal(1, 2, 3, 3), id="g"
        )
    ],
    "max_pool2d_gather": [
        Case(lambda g: P_POOL.max_pool2d_gather(g, *POOL_XO, **POOL_P), normal(1, 2, 4, 5), id="g")
    ],
    "avg_pool2d": [
        Case(lambda x: F_POOL.avg_pool2d(x, 2), normal(2, 2, 4, 4), id="2x2"),
        Case(
            lambda x: F_POOL.avg_pool2d(x, 3, 2, 1, True, False),
            normal(1, 2, 5, 6),
            id="padded-ceil-exclude-pad",
        ),
    ],
    "avg_pool2d_backward": [
        Case(
            lambda g: P_POOL.avg_pool2d_backward(g, input_shape=(1, 2, 4, 5), **AVG_P),
            normal(1, 2, 2, 5),
            id="g",
        )
    ],
    # float representation (primitives/floating.py): a step of one ulp, gradient g for x
    "nextafter": [
        Case(tg.nextafter, normal(3, 4), normal(4, seed=1), id="row", const=(1,)),
        Case(lambda x: x.nextafter(tg.tensor(np.inf, dtype=tg.float64)), normal(5), id="to-inf"),
    ],
}

# Composite ops (built from primitives): gradcheck'd like the primitives, but not keyed by them.
COMPOSITES = [
    Case(lambda x: x.mean(), normal(3, 4), id="mean"),
    Case(lambda x: x.mean(axis=0), normal(3, 4), id="mean-axis"),
    Case(lambda x: tg.mean(x, dim=(0, 1), keepdim=True), normal(2, 3, 2), id="mean-dims"),
    Case(lambda x: x.max(1).values, distinct(3, 4), id="max-dim-values", smooth=False),
    Case(lambda x: tg.min(x, 0, True)[0], distinct(3, 4), id="min-dim-keepdim", smooth=False),
    Case(lambda x: x.var(), normal(3, 4), id="var"),
    Case(lambda x: x.var(axis=1, ddof=1), normal(3, 4), id="var-ddof"),
    Case(lambda x: x.std(axis=0), normal(3, 4), id="std"),
    Case(lambda x: x.softmax(), normal(3, 4), id="softmax"),
    Case(lambda x: tg.softmax(x, dim=0), normal(3, 4), id="softmax-dim0"),
    Case(lambda x: x.log_softmax(axis=-1), normal(3, 4), id="log_softmax"),
    Case(lambda x: tg.log_softmax(x * 100, 1), normal(2, 3), id="log_softmax-large"),
    Case(lambda a, b: tg.stack([a, b], dim=-1), normal(2, 3), normal(2, 3), id="stack"),
    Case(lambda x: tg.split(x, [1, 3], axis=1)[1] * 2, normal(3, 4), id="split-sections"),
    Case(lambda x: x.chunk(2, 0)[0], normal(4, 2), id="chunk"),
    Case(lambda x: tg.squeeze(tg.unsqueeze(x, 0), 0), normal(3), id="squeeze-unsqueeze"),
    Case(lambda x: tg.flatten(x, 1), normal(2, 3, 2), id="flatten-start"),
    Case(lambda x: x.clip(-0.4, 0.4), distinct(3, 4), id="clip", smooth=False),
    Case(
        lambda x, y: tg.where(x > y, x, y), *pair_distinct((3, 4), (4,)), id="where", smooth=False
    ),
    Case(lambda x: x[1:, None, ..., [0, 2]], normal(3, 4), id="getitem-mixed"),
    Case(lambda x: x[..., 1], normal(2, 3, 4), id="getitem-ellipsis"),
    Case(lambda x: x[x.numpy() > 0] * 2, normal(3, 4), id="getitem-mask-from-data"),
    Case(
        lambda x, v: _setitem(x, v, (slice(0, 2), [1, 3])), normal(3, 4), normal(2, 2), id="setitem"
    ),
    Case(lambda x: x.square(), normal(3), id="square"),
    Case(lambda x: tg.sqrt((x * x).sum()), normal(3), id="norm"),
    Case(lambda x: x.clone() * 2, normal(3), id="clone"),
    Case(lambda x: tg.dot(x, x), normal(3), id="dot"),
]


def _zero_part(x):
    b = x * 1
    b[1:3].zero_()  # recorded: the zeroed part gets no gradient, the rest does
    return b * 2


def _flat_cases():
    for name in sorted(CASES):
        for case in CASES[name]:
            yield pytest.param(name, case, id=f"{name}-{case.id}")


# Primitives PyTorch has no derivative for (their rules raise; nothing to gradcheck):
# tests/test_householder.py checks their values against torch, under vmap, and their error.
NO_DERIVATIVE = {"geqrf_reflectors", "geqrf_tau"}


def test_every_primitive_has_cases():
    """A new primitive in the rule table must come with test cases here."""
    assert set(CASES) | NO_DERIVATIVE == set(REGISTRY), (
        f"missing cases: {sorted(set(REGISTRY) - set(CASES) - NO_DERIVATIVE)}; "
        f"cases for unknown primitives: {sorted(set(CASES) - set(REGISTRY))}"
    )
    for name, cases in CASES.items():
        assert cases, f"no cases for {name}"


@pytest.mark.parametrize("name", sorted(set(REGISTRY) - NO_DERIVATIVE))
def test_primitive_has_cases(name):
    assert CASES.get(name), f"primitive {name!r} is registered but has no test case in CASES"


def _primitives_in_graph(out):
    return {node.prim.name for node in execution_order([out.grad_fn])}


@pytest.mark.parametrize("name,case", list(_flat_cases()))
def test_gradcheck(name, case):
    inputs = case.tensors()
    out = case.fn(*inputs)
    assert out.dtype == np.float64
    assert name in _primitives_in_graph(out), f"case {case.id} does not exercise {name}"
    assert tg.autograd.gradcheck(case.fn, inputs, **case.gc)


@pytest.mark.parametrize("name,case", [p for p in _flat_cases() if p.values[1].smooth])
def test_gradgradcheck(name, case):
    assert tg.autograd.gradgradcheck(case.fn, case.tensors(), **case.gc)


@pytest.mark.parametrize("name,case", [p for p in _flat_cases() if not p.values[1].smooth])
def test_piecewise_linear_second_order_is_zero_or_linear(name, case):
    """Away from the kinks the second derivative is 0: gradgradcheck still holds."""
    assert tg.autograd.gradgradcheck(case.fn, case.tensors(), **case.gc)


@pytest.mark.parametrize("case", COMPOSITES, ids=[c.id for c in COMPOSITES])
def test_composite_gradcheck(case):
    assert tg.autograd.gradcheck(case.fn, case.tensors())
    if case.smooth:
        assert tg.autograd.gradgradcheck(case.fn, case.tensors())


@pytest.mark.parametrize("name", sorted(REGISTRY))
def test_formula_present(name):
    text = tg.autograd.formula(name)
    assert text.strip()
    assert "dL/d" in text
    assert REGISTRY[name].node_name in text
    assert tg.autograd.rules()[name] == text


def test_formula_lookup_by_node_name_and_unknown():
    assert tg.autograd.formula("SinBackward") == tg.autograd.formula("sin")
    assert "cos(x)" in tg.autograd.formula("sin")
    with pytest.raises(KeyError, match="no primitive or function named 'sinn'.*'sin'"):
        tg.autograd.formula("sinn")


# ---- values of the forward, checked against NumPy ----------------------------------------------
@pytest.mark.parametrize("name,case", list(_flat_cases()))
def test_forward_is_float64_and_finite(name, case):
    out = case.fn(*case.tensors())
    assert np.all(np.isfinite(out.numpy()))


def test_forward_values_match_numpy():
    x, y = normal(3, 4), away(4)
    t, u = tg.tensor(x), tg.tensor(y)
    np.testing.assert_allclose((t / u).numpy(), x / y)
    np.testing.assert_allclose(t.sigmoid().numpy(), 1 / (1 + np.exp(-x)))
    np.testing.assert_allclose(t.logsumexp(1).numpy(), np.log(np.exp(x).sum(1)))
    np.testing.assert_allclose(t.softmax(0).numpy(), np.exp(x) / np.exp(x).sum(0, keepdims=True))
    np.testing.assert_allclose(t.var(1).numpy(), x.var(1, ddof=1))  # (PyTorch's n - 1)
    np.testing.assert_allclose(t.var(1, correction=0).numpy(), x.var(1))
    np.testing.assert_allclose(t.var(1, ddof=1).numpy(), x.var(1, ddof=1))
    np.testing.assert_allclose((t @ u).numpy(), x @ y)
    np.testing.assert_allclose(t.prod(0).numpy(), x.prod(0))
    big = tg.tensor([1000.0, 1000.0])
    assert big.logsumexp().item() == pytest.approx(1000 + np.log(2))
    assert np.all(np.isfinite(tg.tensor([-1000.0, 1000.0]).sigmoid().numpy()))


@pytest.mark.parametrize(
    "dtype", [np.float16, np.float32, np.float64], ids=lambda d: np.dtype(d).name
)
def test_softmax_family_precise_at_magnitude_1e4(dtype):
    """Values and gradients as precise as the shift-invariant float64 reference allows."""
    x = np.array([[1e4, 1e4, -1e4, 0.0], [1e4, 1e4 - 8, 1e4 - 16, -1e4], [-1e4] * 4])
    e = np.exp(x - x.max(1, keepdims=True))
    soft = e / e.sum(1, keepdims=True)
    g = np.array([[0.5, -1.0, 0.25, 2.0], [1.0, 1.0, -0.5, 0.5], [-2.0, 0.5, 1.0, 0.25]])
    tol = 16 * np.finfo(dtype).eps
    t = tg.tensor(x.astype(dtype), requires_grad=True)
    np.testing.assert_allclose(t.softmax(1).numpy(), soft, atol=tol)
    log_soft = x - x.max(1, keepdims=True) - np.log(e.sum(1, keepdims=True))
    assert np.all(
        np.abs(t.log_softmax(1).numpy() - log_soft) <= tol * np.maximum(1, np.abs(log_soft))
    )
    np.testing.assert_allclose(t.logsumexp(1).numpy(), x.max(1) + np.log(e.sum(1)), rtol=tol)
    (gs,) = tg.autograd.grad(t.softmax(1), t, grad_outputs=tg.tensor(g.astype(dtype)))
    np.testing.assert_allclose(
        gs.numpy(), soft * (g - (g * soft).sum(1, keepdims=True)), atol=4 * tol
    )
    (gl,) = tg.autograd.grad(t.logsumexp(1), t, grad_outputs=tg.tensor(g[:, 0].astype(dtype)))
    np.testing.assert_allclose(gl.numpy(), g[:, :1] * soft, atol=4 * tol)
    assert gs.dtype == gl.dtype == dtype


# ---- the non-differentiable points: dedicated tests ----------------------------------------------
def test_repeated_indices_accumulate():
    x = tg.tensor([1.0, 2.0, 3.0], requires_grad=True)
    x[[0, 0]].sum().backward()
    assert x.grad.tolist() == [2.0, 0.0, 0.0]
    x.grad = None
    x[tg.tensor([2, 2, 2, 0])].sum().backward()
    assert x.grad.tolist() == [1.0, 0.0, 3.0]


def test_max_min_reduction_ties_share_equally():
    x = tg.tensor([3.0, 1.0, 3.0, 3.0], requires_grad=True)
    x.max().backward()
    np.testing.assert_allclose(x.grad.numpy(), [1 / 3, 0, 1 / 3, 1 / 3])
    y = tg.tensor([[2.0, 2.0, 0.0], [1.0, 5.0, 1.0]], requires_grad=True)
    y.min(axis=1).sum().backward()
    np.testing.assert_allclose(y.grad.numpy(), [[0, 0, 1], [0.5, 0, 0.5]])
    z = tg.tensor([[2.0, 2.0], [1.0, 2.0]], requires_grad=True)
    z.amax(0, keepdims=True).backward(tg.tensor([[10.0, 6.0]]))
    np.testing.assert_allclose(z.grad.numpy(), [[10, 3], [0, 3]])


def test_abs_and_relu_at_zero_give_zero():
    x = tg.tensor([0.0, -1.0, 2.0], requires_grad=True)
    (x.abs() + x.relu()).sum().backward()
    assert x.grad.tolist() == [0.0, -1.0, 2.0]


def test_maximum_minimum_ties_give_half():
    x = tg.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = tg.tensor([1.0, 0.0, 4.0], requires_grad=True)
    gx, gy = tg.autograd.grad(tg.maximum(x, y).sum(), [x, y])
    assert gx.tolist() == [0.5, 1.0, 0.0] and gy.tolist() == [0.5, 0.0, 1.0]
    gx, gy = tg.autograd.grad(tg.minimum(x, y).sum(), [x, y])
    assert gx.tolist() == [0.5, 0.0, 1.0] and gy.tolist() == [0.5, 1.0, 0.0]
    # against a broadcast scalar tensor
    s = tg.tensor(2.0, requires_grad=True)
    gx, gs = tg.autograd.grad(tg.maximum(x, s).sum(), [x, s])
    assert gx.tolist() == [0.0, 0.5, 1.0] and gs.item() == 1.5


def test_clip_boundary_passes_gradient():
    x = tg.tensor([-1.0, -0.5, 0.0, 0.5, 1.0], requires_grad=True)
    x.clip(-0.5, 0.5).sum().backward()
    assert x.grad.tolist() == [0.0, 1.0, 1.0, 1.0, 0.0]


def test_sign_gradient_is_zero_not_unused():
    x = tg.tensor([1.0, -2.0], requires_grad=True)
    (g,) = tg.autograd.grad(x.sign().sum(), x)
    assert g.tolist() == [0.0, 0.0]


def test_prod_with_zeros_first_and_second_order():
    x = tg.tensor([2.0, 0.0, 3.0], requires_grad=True)
    x.prod().backward()
    assert x.grad.tolist() == [0.0, 6.0, 0.0]
    (g,) = tg.autograd.grad(x.prod(), x, create_graph=True)
    (h,) = tg.autograd.grad(g[1], x)
    assert h.tolist() == [3.0, 0.0, 2.0]  # d/dx (x0 * x2)
    for data, axis in [
        ([[0.0, 0.0, 2.0], [1.0, 2.0, 3.0]], 1),
        ([[0.0, 0.5], [1.5, 0.0]], None),
        ([[0.0, 0.5, 2.0], [1.0, 0.0, 3.0]], 0),
    ]:
        y = tg.tensor(data, dtype=tg.float64, requires_grad=True)
        assert tg.autograd.gradcheck(lambda t: t.prod(axis=axis), [y])
        assert tg.autograd.gradgradcheck(lambda t: t.prod(axis=axis), [y])
    z = tg.tensor(
        np.array([0.0, 0.5, 2.0, 1.0, 1.5, 0.0]).reshape(3, 2, 1),
        dtype=tg.float64,
        requires_grad=True,
    )
    assert tg.autograd.gradgradcheck(lambda t: t.prod(axis=(0, 2), keepdims=True), [z])


def test_pow_zero_base_with_exponent_gradient():
    x = tg.tensor([0.0, 2.0], dtype=tg.float64, requires_grad=True)
    y = tg.tensor([2.0, 3.0], dtype=tg.float64, requires_grad=True)
    gx, gy = tg.autograd.grad((x**y).sum(), [x, y])
    np.testing.assert_allclose(gx.numpy(), [0.0, 12.0])
    np.testing.assert_allclose(gy.numpy(), [0.0, 8 * np.log(2)])


def test_pow_zero_exponent_at_zero_base_has_zero_gradient():
    x = tg.tensor([0.0, 1.0, 2.0], requires_grad=True)
    with np.errstate(all="raise"):
        sum(x**k for k in range(4)).sum().backward()  # 1 + x + x^2 + x^3
    assert x.grad.tolist() == [1.0, 6.0, 17.0]
    # an exponent tensor at 0 (with a base away from 0) keeps its second derivatives
    b = tg.tensor([0.5, 1.5, 2.0], dtype=tg.float64, requires_grad=True)
    e = tg.tensor([0.0, 2.0, 0.0], dtype=tg.float64, requires_grad=True)
    assert tg.autograd.gradgradcheck(lambda u, v: u**v, [b, e])


def test_concatenate_with_constant_input_gets_no_gradient_there():
    a = tg.tensor([1.0, 2.0], requires_grad=True)
    b = tg.tensor([3.0])
    out = tg.cat([a, b])
    out.backward(tg.tensor([1.0, 2.0, 3.0]))
    assert a.grad.tolist() == [1.0, 2.0] and b.grad is None


def test_setitem_records_and_routes_gradients():
    x = tg.tensor([1.0, 2.0, 3.0], requires_grad=True)
    v = tg.tensor(10.0, requires_grad=True)
    y = x * 2
    y[1] = v
    assert y.grad_fn.name == "IndexPutBackward"
    (y * tg.tensor([1.0, 2.0, 3.0])).sum().backward()
    assert x.grad.tolist() == [2.0, 0.0, 6.0]
    assert v.grad.item() == 2.0
    # a constant buffer filled from a tensor that requires grad joins the tape
    buf = tg.zeros(3)
    buf[0] = v
    assert buf.requires_grad and not buf.is_leaf
    buf.sum().backward()
    assert v.grad.item() == 3.0


@pytest.mark.parametrize(
    "name,formula",
    [
        ("tanh_backward", lambda g, y: g * (1 - y * y)),
        ("sigmoid_backward", lambda g, y: g * (y * (1 - y))),
    ],
)
@pytest.mark.parametrize(
    "shapes",
    [((200, 100), (200, 100)), ((100,), (200, 100)), ((200, 100), (100,)), ((3, 2), (3, 2))],
)
def test_activation_backward_forwards_reuse_temporaries_without_touching_inputs(
    name, formula, shapes
):
    """Large arrays are computed into a temporary of the op's own; the result must equal the
    formula (for each dtype and broadcast), and g and y must be left as they were. Small ones
    subtract from a one of their own dtype (fused._one_minus): bit for bit the formula's result."""
    rng = np.random.default_rng(3)
    for dtype in (np.float16, np.float32, np.float64):
        g = rng.standard_normal(shapes[0]).astype(dtype)
        y = rng.uniform(-1, 1, shapes[1]).astype(dtype)
        g0, y0 = g.copy(), y.copy()
        got = P[name].forward(g, y)
        np.testing.assert_allclose(got, formula(g0, y0), rtol=1e-6 if dtype != np.float16 else 1e-3)
        if max(g.size, y.size) < 16384:
            np.testing.assert_array_equal(got, formula(g0, y0), strict=True)
        assert got.dtype == dtype and got.shape == np.broadcast_shapes(g.shape, y.shape)
        assert np.array_equal(g, g0) and np.array_equal(y, y0)
        assert not np.shares_memory(got, g) and not np.shares_memory(got, y)
    mixed = P[name].forward(np.ones(shapes[0], np.float64), np.zeros(shapes[1], np.float32))
    assert mixed.dtype == np.float64  # g's wider dtype wins, as with the operators


@pytest.mark.parametrize("name", sorted(n for n, p in P.items() if p.elementwise))
@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_elementwise_primitives_keep_shape_and_dtype_forward_and_backward(name, dtype):
    """The tape trusts `elementwise` (no shape or dtype checks for these ops when every input has
    the output's shape and dtype): the forward and each rule, on arrays and recorded on Tensors,
    must give that shape and dtype, whatever the other input of a binary op is (a Python number,
    an array of a narrower dtype)."""
    prim = P[name]
    rng = np.random.default_rng(1)
    x = rng.uniform(0.5, 1.5, (3, 4)).astype(dtype)
    g = np.ones((3, 4), dtype)
    others = [x[::-1].copy(), 2.0, 3, np.full((3, 4), 2, np.int8), np.ones((1, 4), dtype)]
    cases = [(x,)] if len(prim.input_names) == 1 else [(x, y) for y in others]
    cases += [(y, x) for (_, y) in cases[1:]]
    assert 1 <= len(prim.input_names) <= 2
    settings = {
        "leaky_relu": [dict(slope=0.2), dict(slope=-1.5)],  # (both paths)
        "polygamma": [dict(n=0), dict(n=1), dict(n=3)],  # (digamma, trigamma, the zeta series)
    }.get(name, [{}])
    for inputs, params in [(i, p) for i in cases for p in settings]:
        out = prim.forward(*inputs, **params)
        assert out.shape == x.shape and out.dtype == dtype, inputs
        looks_like_out = [
            np.shape(v) == x.shape and getattr(v, "dtype", 0) == dtype for v in inputs
        ]
        for i, rule in enumerate(prim.compile()):
            if rule is None or not looks_like_out[i]:
                continue
            gx = rule(g, out, *inputs, **params)
            assert gx.shape == x.shape and gx.dtype == dtype, (name, i, inputs)
            tensors = [
                tg.tensor(v, requires_grad=v.dtype == dtype) if isinstance(v, np.ndarray) else v
                for v in inputs
            ]
            recorded = rule(
                tg.tensor(g, requires_grad=True), prim(*tensors, **params), *tensors, **params
            )
            assert recorded.shape == x.shape and recorded.dtype == dtype, (name, i, inputs)


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64, np.complex64])
def test_masked_is_where_bit_for_bit_also_for_inf_nan_and_negative_zero(dtype):
    """bits.masked(g, keep) selects by bits; it must equal np.where(keep, g, 0) exactly: an inf
    or NaN of g gives 0 where keep is False (g * keep would give NaN), -0.0 stays where kept.
    bits.dropped(g, drop), relu's, must equal np.where(drop, 0, g) as exactly."""
    from tapegrad.primitives.bits import dropped, masked

    rng = np.random.default_rng(5)
    g = rng.standard_normal((4, 6)).astype(dtype)
    g.flat[:5] = [np.inf, -np.inf, np.nan, -0.0, 0.0]
    for keep in (rng.random((4, 6)) > 0.5, np.zeros((4, 6), bool), np.ones((4, 6), bool)):
        want = np.where(keep, g, 0)
        got = masked(g, keep)
        assert got.dtype == dtype and got.shape == g.shape
        assert np.array_equal(got.view(np.uint8), want.view(np.uint8))  # (the bits)
        into = np.full((4, 12), 7, dtype)[:, ::2]  # a strided view, as max-pool's taps
        assert masked(g, keep, out=into) is into
        assert np.array_equal(into.copy().view(np.uint8), want.view(np.uint8))
        unwanted = np.where(keep, 0, g)
        assert np.array_equal(dropped(g, keep).view(np.uint8), unwanted.view(np.uint8))
        assert dropped(g, keep, out=into) is into and dropped(g, keep).dtype == dtype
        assert np.array_equal(into.copy().view(np.uint8), unwanted.view(np.uint8))
    assert np.array_equal(dropped(g, np.zeros((1, 6), bool)), g, equal_nan=True)
    wide = masked(g, np.ones((1, 6), bool))  # (another shape: np.where's broadcasting)
    assert np.array_equal(wide, g, equal_nan=True)
    counts = np.full((4, 6), 2)  # (not bool: np.where's truth, not bits)
    assert np.array_equal(masked(g, counts), g, equal_nan=True)


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64, np.complex64])
def test_select_is_where_bit_for_bit_and_falls_back_to_it(dtype):
    """bits.select(cond, x, y), where's forward, equals np.where(cond, x, y) exactly (inf, NaN,
    -0.0 included), by bits on large same-shaped arrays and by np.where on anything else."""
    from tapegrad.primitives import bits

    rng = np.random.default_rng(6)
    x = rng.standard_normal((64, 80)).astype(dtype)  # (above the size where bits take over)
    y = rng.standard_normal((64, 80)).astype(dtype)
    x.flat[:5] = [np.inf, -np.inf, np.nan, -0.0, 0.0]
    y.flat[5:10] = [np.inf, -np.inf, np.nan, -0.0, 0.0]
    assert x.size >= bits._SELECT_FROM
    for cond in (rng.random(x.shape) > 0.5, np.zeros(x.shape, bool), np.ones(x.shape, bool)):
        for a, b in ((x, y), (x.T.copy().T, y[::-1])):  # (contiguous and strided views)
            want = np.where(cond, a, b)
            got = bits.select(cond, a, b)
            assert got.dtype == want.dtype and got.shape == want.shape
            assert np.array_equal(np.ascontiguousarray(got).view(np.uint8), want.view(np.uint8))
    half = rng.random(x.shape) > 0.5
    others = [  # broadcasting, a number, a non-bool condition, small arrays, mixed dtypes
        (half[:1], x, y),
        (half, x, 0.0),
        (np.full(x.shape, 2), x, y),
        (half[:2, :3], x[:2, :3], y[:2, :3]),
        (half, x, y.astype(np.result_type(dtype, np.float64))),
    ]
    for cond, a, b in others:
        assert np.array_equal(bits.select(cond, a, b), np.where(cond, a, b), equal_nan=True)


def test_relu_and_max_pool_gradients_are_exact_at_infinities_and_nan():
    """relu's rule is PyTorch's threshold_backward, where(out <= 0, 0, g): a NaN input passes g;
    an infinite g gives 0 where relu or max-pool blocks it, never NaN (as PyTorch)."""
    r = tg.tensor([-1.0, 0.0, 2.0, np.nan], requires_grad=True)
    r.relu().sum().backward()
    assert r.grad.numpy().tolist() == [0.0, 0.0, 1.0, 1.0]
    r.grad = None
    tg.nn.functional.elu(r).sum().backward()  # (elu: a NaN takes the exp branch, as PyTorch's
    # vectorised kernel; its scalar loop, which small tensors go through, passes g instead)
    assert np.allclose(r.grad.numpy(), [np.exp(-1.0), 1.0, 1.0, np.nan], equal_nan=True)
    r = tg.tensor([-1.0, 0.0, 4.0], requires_grad=True)
    with np.errstate(divide="ignore"):
        r.relu().sqrt().sum().backward()  # sqrt's gradient at 0 is inf
    assert r.grad.numpy().tolist() == [0.0, 0.0, 0.25]
    x = tg.tensor(np.arange(1.0, 17.0).reshape(1, 1, 4, 4), requires_grad=True)
    y = tg.nn.functional.max_pool2d(x, 2)
    with np.errstate(divide="ignore", invalid="ignore"):
        (y - tg.tensor([[[[6.0, 8.0], [14.0, 16.0]]]])).sqrt().sum().backward()
    want = np.zeros((4, 4))
    want[1, 1] = want[1, 3] = want[3, 1] = want[3, 3] = np.inf
    assert np.array_equal(x.grad.numpy()[0, 0], want)


def test_max_and_min_select_exactly_at_infinities_and_nan_as_pytorch_max():
    """max/min give an infinite g to the extreme and exactly 0 elsewhere (g * 0 would be NaN), also
    over an axis (amax: PyTorch gives NaN there); a NaN extreme takes the gradient, as PyTorch's
    max(). Max-pool's double backward (the gather) selects exactly too."""
    with np.errstate(divide="ignore", invalid="ignore"):
        cases = [
            (lambda t: t.max(), [1.0, 3.0, 2.0], -3.0),
            (lambda t: t.amax(0), [1.0, 3.0, 2.0], -3.0),
            (lambda t: t.min(), [1.0, -3.0, -2.0], 3.0),
        ]
        for reduce, values, shift in cases:
            x = tg.tensor(values, requires_grad=True)
            (reduce(x) + shift).sqrt().backward()  # sqrt at +0: d/d(extreme) is inf
            assert x.grad.numpy().tolist() == [0.0, np.inf, 0.0]
        x = tg.tensor([[1.0, np.nan, 2.0], [1.0, 5.0, 2.0]], requires_grad=True)
        x.max().backward()
        assert x.grad.numpy().tolist() == [[0.0, 1.0, 0.0], [0.0, 0.0, 0.0]]
        x.grad = None
        x.amax(1).sum().backward()
        assert x.grad.numpy().tolist() == [[0.0, 1.0, 0.0], [0.0, 1.0, 0.0]]
        x = tg.tensor(np.arange(1.0, 17.0).reshape(1, 1, 4, 4), requires_grad=True)
        y = tg.nn.functional.max_pool2d(x, 2)
        (g,) = tg.autograd.grad((y * y).sum() / 2, x, create_graph=True)  # y at the winners
        v = np.where(np.arange(16).reshape(1, 1, 4, 4) % 2, 1.0, np.inf)  # inf off the winners
        (gg,) = tg.autograd.grad((g * tg.tensor(v)).sum(), x)
    assert gg.numpy().tolist() == [[[[0.0, 0.0, 0.0, 0.0], [0.0, 1.0, 0.0, 1.0]] * 2]]


@pytest.mark.parametrize("name", ["mul", "div", "matmul", "tanh", "sum"])
def test_a_plans_combined_rules_are_its_needed_rules(name):
    """Each save plan runs its needed rules as one function (the engine's call): one gradient per
    input, None for the inputs that need none, each equal to that input's own rule."""
    rng = np.random.default_rng(4)
    prim = REGISTRY[name]
    inputs: tuple = (
        (rng.standard_normal((3, 4)), rng.standard_normal((4, 2)))
        if name == "matmul"
        else tuple(rng.uniform(0.5, 1.5, (3, 4)) for _ in prim.input_names)
    )
    out = prim.forward(*inputs)
    g = rng.standard_normal(np.shape(out))
    n = len(inputs)
    for needs in range(1, 2**n):
        grads = prim.plan(needs, n).backward(g, out, inputs, {})
        assert isinstance(grads, tuple) and len(grads) == n
        for i, gi in enumerate(grads):
            if not (needs >> i) & 1:
                assert gi is None
            else:
                np.testing.assert_allclose(gi, prim.compile()[i](g, out, *inputs), rtol=1e-12)


def test_a_plans_combined_rules_read_params_and_defaulted_inputs():
    """The combined rules take the node's parameters as given (defaults for the rest) and pad
    inputs left out of the call with the forward's defaults (conv2d without a bias)."""
    rng = np.random.default_rng(5)
    x = rng.standard_normal((3, 4))
    prim = REGISTRY["sum"]
    for params in ({}, {"axis": (1,)}, {"axis": (0,), "keepdims": True}):
        out = prim.forward(x, **params)
        g = rng.standard_normal(np.shape(out))
        (gx,) = prim.plan(1, 1).backward(g, out, (x,), params)
        np.testing.assert_allclose(gx, prim.compile()[0](g, out, x, **params), rtol=1e-12)
        assert gx.shape == x.shape
    conv = REGISTRY["conv2d"]
    xi, w = rng.standard_normal((1, 2, 5, 5)), rng.standard_normal((3, 2, 3, 3))
    params = {"stride": (1, 1), "padding": (1, 1, 1, 1), "dilation": (1, 1), "groups": 1}
    out = conv.forward(xi, w, **params)
    g = rng.standard_normal(out.shape)
    gx, gw, gb = conv.plan(3, 2).backward(g, out, (xi, w), params)
    assert gb is None  # (the bias left out: no gradient)
    expect = conv.compile()
    np.testing.assert_allclose(gx, expect[0](g, out, xi, w, **params), rtol=1e-12)
    np.testing.assert_allclose(gw, expect[1](g, out, xi, w, **params), rtol=1e-12)


def test_product_is_matmul_also_for_outer_products_and_errors():
    """linalg.product (matmul's forward, the fused products, the conv GEMMs) multiplies by
    broadcasting when the inner size is 1 (NumPy's matmul is slow there): the same values, dtype
    and shape as np.matmul, batch axes included, and the same error for mismatched shapes."""
    from tapegrad.primitives.linalg import product

    rng = np.random.default_rng(6)
    pairs = [
        ((5, 1), (1, 7)),
        ((3, 4, 1), (1, 1, 6)),  # (batch axes broadcast)
        ((2, 1, 1), (1, 1, 2)),
        ((4, 3), (3, 2)),
        ((3,), (3, 2)),
        ((3, 1), (1,)),
    ]
    for sa, sb in pairs:
        for da, db in ((np.float32, np.float32), (np.float32, np.float64), (np.int64, np.float32)):
            a, b = rng.standard_normal(sa).astype(da), rng.standard_normal(sb).astype(db)
            want = np.matmul(a, b)
            got = product(a, b)
            assert got.shape == want.shape and got.dtype == want.dtype
            np.testing.assert_array_equal(got, want)
    with pytest.raises(ValueError):
        product(np.ones((4, 1)), np.ones((4, 5)))  # (matmul's error, not a broadcast)
    x = tg.tensor(rng.standard_normal((1, 3)), requires_grad=True)
    w = tg.tensor(rng.standard_normal((4, 3)), requires_grad=True)
    assert tg.autograd.gradcheck(lambda x, w: tg.nn.functional.linear(x, w), (x, w))
