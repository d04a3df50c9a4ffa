"""Property tests: random expression DAGs over every primitive, checked against NumPy and finite
differences.

A hypothesis strategy (`programs`) writes a small straight-line program twice: as tapegrad code and
as the same computation in plain NumPy. Statements reuse earlier values (fan-out, shared
sub-expressions), broadcast between random compatible shapes, index (basic, integer arrays with
repeats, tensors, masks), assign into slices, reduce over random axes, reshape and concatenate. The
program ends in `loss = sum of (sink * random weights)`. The generator evaluates the NumPy side as
it goes, so it can keep every op in a safe domain: positive bases for log/sqrt/pow, operands scaled
by powers of two to stay small, and shifts that keep kinks (relu, abs, sign, maximum, minimum, clip,
max/min ties) at least `KINK` away. A failing example prints as a program you can paste into Python.

Checked, all in float64: forward values against NumPy; `tg.autograd.grad` against central finite
differences of the NumPy program (casts to float32 and back are treated as the identity there, which
is what their rule claims); `loss.backward()` agrees with `grad`; second order (grad of a random
scalar function of the first-order grads, create_graph=True) against finite differences of the
first-order grads, on the smooth ops. Separately: an in-place op through a view either writes
through to the base (values and gradients, as NumPy and PyTorch) or raises; it never leaves the base
stale."""

from __future__ import annotations

import math

import hypothesis.extra.numpy as hnp
import numpy as np
import pytest
from hypothesis import given, reject, settings
from hypothesis import strategies as st

import tapegrad as tg
from helpers import finite_differences
from tapegrad.primitives import REGISTRY
from tapegrad.tape.node import Node


def budget(n: int) -> int:
    """n examples under the default profile, scaled up under `pytest --slow`."""
    return max(1, n * settings().max_examples // 100)


KINK = 1e-3  # minimum distance of any kink / tie from the values it acts on
FD_EPS = 1e-6  # central differences on the float64 NumPy program
MAX_ELEMS = 48  # elements per intermediate value
MAX_LEAF_ELEMS = 24  # elements per leaf (finite differences cost 2 evaluations per element)

# Op kinds, simplest first (hypothesis shrinks towards the front). Each maps to the primitive(s) it
# must put on the tape; scatter_add is reached by getitem's backward.
KIND_PRIMS = {
    "add": "add",
    "sub": "sub",
    "mul": "mul",
    "neg": "neg",
    "div": ("div", "reciprocal"),  # (number / x is a reciprocal times the number, as PyTorch)
    "pow": "pow",
    "exp": "exp",
    "log": "log",
    "sin": "sin",
    "cos": "cos",
    "tan": "tan",
    "tanh": "tanh",
    "sigmoid": "sigmoid",
    "sqrt": "sqrt",
    "where": "where",
    "cast": "cast",
    "matmul": ("matmul", "mv", "dot"),
    "linear": "linear",
    "sum": "sum",
    "mean": "mean",
    "var": "mean",
    "prod": "prod",
    "logsumexp": "logsumexp",
    "softmax": "logsumexp",
    "log_softmax": "logsumexp",
    "reshape": "reshape",
    "transpose": "transpose",
    "expand": "expand",
    "getitem": "getitem",
    "setitem": "index_put",
    "concatenate": "concatenate",
    "stack": "concatenate",
    "inplace": ("add", "sub", "mul", "div"),
    # piecewise: kinks kept away from the values; not in the second-order subset
    "relu": "relu",
    "leaky_relu": "leaky_relu",
    "abs": "abs",
    "sign": "sign",
    "maximum": "maximum",
    "minimum": "minimum",
    "clip": "clip",
    "max": ("max", "getitem"),  # (getitem: PyTorch's x.max(dim).values picks at the indices)
    "min": ("min", "getitem"),
    "log1p": "log1p",
    "expm1": "expm1",
    "fill": "fill",
    "max_pool": "max_pool2d",
    "rounding": ("floor", "ceil", "trunc", "round"),  # (a zero gradient, jumps kept away)
    # convolution and average pooling: smooth (linear), placed after the piecewise kinds so that
    # hypothesis still shrinks towards the simple ops
    "conv": "conv2d",
    "avg_pool": "avg_pool2d",
    "erf": "erf",
    "gelu": "gelu",
    "mse": "mse",
    "cumsum": "cumsum",
    "cumprod": "cumprod",
    "einsum": "einsum",
    "norm": "normalize",
    "batch_norm": "affine_normalize",
    "attention": "scaled_dot_product_attention",
    # a recurrent step: the gates' GEMM (c + x @ w.T) into an LSTM or a GRU cell (all its rows)
    "recurrent_cell": ("addmm_nt", "lstm_cell", "gru_cell"),
    "log10": "log10",
    "log2": "log2",
    "contiguous": ("transpose", "contiguous"),
    "floor_divide": "floor_divide",  # (a zero gradient, jumps kept away)
    "remainder": "remainder",  # (gradient 1 between the jumps, kept away)
    # transcendental (primitives/transcendental.py)
    "hyperbolic": ("sinh", "cosh", "asinh", "atan", "exp2", "sinc", "erfc"),
    "inverse_trig": ("asin", "acos", "atanh"),
    "acosh": "acosh",
    "logit": "logit",
    "nan_to_num": "nan_to_num",
    "two_argument": ("atan2", "hypot", "logaddexp", "logaddexp2"),
    "xlogy": "xlogy",
    "fmod": "fmod",  # (gradient 1 between the jumps, kept away)
    "copysign": "copysign",  # (x kept away from 0, the sign from a constant)
    "fmax_fmin": ("fmax", "fmin"),  # (ties kept away)
    # special functions (primitives/special_functions.py), away from poles and kinks
    "gamma_family": ("lgamma", "digamma", "polygamma"),
    "normal_inverse": ("erfinv", "ndtri"),
    "normal_cdf": ("ndtr", "log_ndtr", "erfcx"),
    "bessel": ("i0", "i1", "i0e", "i1e"),
    "entropy_terms": ("entr", "xlog1py", "zeta"),
    "incomplete_gamma": ("gammainc", "gammaincc"),
    # square systems (primitives/linear_systems.py), on A A^T + I: positive-definite, conditioned
    "square_system": ("inv", "det", "logabsdet", "solve", "solve_triangular", "cholesky"),
    "eigh": ("eigvalsh", "eigh_vectors"),  # (on a matrix with well-separated eigenvalues)
    "svd": ("svdvals", "svd_u", "svd_vh", "pinv"),  # (likewise: separated singular values)
    "qr": ("qr_q", "qr_r"),  # (of a well-conditioned matrix, tall, square or wide)
    "lu": ("lu_unpivoted", "lu_permutation"),  # (likewise; through P L U and lu_solve)
    "matrix_exp": "matrix_exp",
    # float representation (primitives/floating.py)
    "nextafter": "nextafter",  # (one ulp towards a constant: its gradient is g)
}
PIECEWISE = (
    "relu",
    "leaky_relu",
    "abs",
    "sign",
    "maximum",
    "minimum",
    "clip",
    "max",
    "min",
    "max_pool",
    "rounding",
    "floor_divide",
    "remainder",
    "fmod",
    "copysign",
    "fmax_fmin",
)
ALL_KINDS = tuple(KIND_PRIMS)
# Second order: the smooth ops. Casts are left out there: the first-order gradient through a float32
# round trip is itself rounded to float32, too coarse to finite-difference
# (test_second_order_through_cast).
SMOOTH_KINDS = tuple(k for k in ALL_KINDS if k not in PIECEWISE and k != "cast")
BACKWARD_ONLY = {
    "scatter_add": "getitem",
    "tanh_backward": "tanh",  # primitive -> kind whose
    "sigmoid_backward": "sigmoid",
    "gelu_backward": "gelu",
    "mse_backward": "mse",
    "matmul_nt": "matmul",
    "matmul_tn": "matmul",
    "conv2d_input_grad": "conv",  # (recorded under create_graph by the second-order tests)
    "conv2d_weight_grad": "conv",
    "max_pool2d_backward": "max_pool",
    "max_pool2d_gather": "max_pool",
    "avg_pool2d_backward": "avg_pool",
}  # backward records it


# ---------------------------------------------------------------------------------------------
# NumPy reference helpers (the namespace the NumPy side of a program runs in)


def _np_lse(a, axis=None, keepdims=False):
    return np.log(
        np.sum(np.exp(a), axis=axis, keepdims=keepdims)
    )  # values are small: naive is exact


def _np_softmax(a, axis):
    e = np.exp(a)
    return e / np.sum(e, axis=axis, keepdims=True)


def _np_log_softmax(a, axis):
    return a - np.log(np.sum(np.exp(a), axis=axis, keepdims=True))


def _np_setitem(a, index, value):
    out = np.array(a, copy=True)
    out[index] = value
    return out


def _viewable(a: np.ndarray, shape: tuple) -> bool:
    """Whether a's memory can be seen as `shape` without a copy (the condition of Tensor.view)."""
    try:
        np.reshape(a, shape, copy=False)
    except ValueError:
        return False
    return True


def _cast32_exact(a):
    return a.astype(np.float32).astype(np.float64)


def _np_conv2d(x, w, stride, pad):
    """Cross-correlation by its definition, one output position at a time."""
    x = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    kh, kw = w.shape[2:]
    ho, wo = (x.shape[2] - kh) // stride + 1, (x.shape[3] - kw) // stride + 1
    out = np.zeros((x.shape[0], w.shape[0], ho, wo))
    for i in range(ho):
        for j in range(wo):
            patch = x[:, :, i * stride : i * stride + kh, j * stride : j * stride + kw]
            out[:, :, i, j] = np.einsum("nchw,ochw->no", patch, w)
    return out


def _np_attention(q, k, v, mask, causal):
    """softmax(q k^T / sqrt(E) + mask) v by its definition."""
    scores = q @ k.T / np.sqrt(q.shape[-1])
    if causal:
        scores = np.where(np.tril(np.ones(scores.shape, bool)), scores, -np.inf)
    if mask is not None:
        scores = np.where(mask, scores, -np.inf) if mask.dtype == bool else scores + mask
    e = np.exp(scores - scores.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True) @ v


def _np_sigmoid(a):
    return 1 / (1 + np.exp(-a))


def _np_lstm_cell(gates, hc):
    """lstm_cell's rows: h', c', i, f, g~, o, tanh(c') (c the state's row 1)."""
    i, f, g, o = np.split(gates, 4, -1)
    i, f, g, o = _np_sigmoid(i), _np_sigmoid(f), np.tanh(g), _np_sigmoid(o)
    c = f * hc[1] + i * g
    return np.stack([o * np.tanh(c), c, i, f, g, o, np.tanh(c)])


def _np_gru_cell(xg, hg, h):
    """gru_cell's rows: h', r, z, n (h the state's row 0)."""
    (xr, xz, xn), (hr, hz, hn) = np.split(xg, 3, -1), np.split(hg, 3, -1)
    r, z = _np_sigmoid(xr + hr), _np_sigmoid(xz + hz)
    n = np.tanh(xn + r * hn)
    return np.stack([(1 - z) * n + z * h[0], r, z, n])


def _np_windows(x, k, stride):
    """(N, C, Ho, Wo, k*k): the k x k windows of x, stride apart."""
    ho, wo = (x.shape[2] - k) // stride + 1, (x.shape[3] - k) // stride + 1
    return np.stack(
        [
            x[:, :, i * stride : i * stride + k, j * stride : j * stride + k].reshape(
                x.shape[:2] + (-1,)
            )
            for i in range(ho)
            for j in range(wo)
        ],
        axis=2,
    ).reshape(x.shape[:2] + (ho, wo, k * k))


def _np_expm(a):
    """exp of each matrix of a (of 1-norm at most ~2) by its Taylor series: 30 terms are exact to
    double precision there."""
    term = out = np.broadcast_to(np.eye(a.shape[-1]), a.shape).copy()
    for k in range(1, 30):
        term = term @ a / k
        out = out + term
    return out


def _np_namespace(exact_casts: bool) -> dict:
    """exact_casts=False: the float32 round trip becomes the identity (what its rule
    differentiates)."""
    return {
        "np": np,
        "lse": _np_lse,
        "softmax": _np_softmax,
        "log_softmax": _np_log_softmax,
        "setitem": _np_setitem,
        "relu": lambda a: np.maximum(a, 0.0),
        "conv2d": _np_conv2d,
        "attention": _np_attention,
        "lstm_cell": _np_lstm_cell,
        "gru_cell": _np_gru_cell,
        "max_pool": lambda x, k, s: np.max(_np_windows(x, k, s), axis=-1),
        "avg_pool": lambda x, k, s: np.mean(_np_windows(x, k, s), axis=-1),
        "cast32": _cast32_exact if exact_casts else (lambda a: a),
        "erf": np.vectorize(math.erf, otypes=[np.float64]),
        "erfc": np.vectorize(math.erfc, otypes=[np.float64]),
        "expm": _np_expm,
        "sp": _scipy_special(),
    }


def _scipy_special():
    """scipy.special, the special functions' reference values (in tests only: the package never
    imports scipy)."""
    import scipy.special

    return scipy.special


# ---------------------------------------------------------------------------------------------
# Programs


def _fmt(x: float) -> str:
    return repr(float(x))


def _arr_src(a: np.ndarray) -> str:
    return f"np.array({a.tolist()!r})"


class Program:
    """A straight-line program written twice: tapegrad code and the same computation in NumPy.

    Its repr is the tapegrad program, ready to paste (hypothesis prints it for a failing example),
    followed by the NumPy reference as comments."""

    def __init__(self, leaves, consts, stmts, loss_tg, loss_np):
        self.leaves = leaves  # [(name, float64 array)]
        self.consts = consts  # {name: array}, constants shared by both sides
        self.stmts = stmts  # [(name, kind, tg_line, np_line)]
        self.loss_tg = loss_tg
        self.loss_np = loss_np
        args = ", ".join(n for n, _ in leaves)
        body = "".join(f"    {line}\n" for _, _, _, line in stmts)
        values = ", ".join(f"{n!r}: {n}" for n, _, _, _ in stmts)
        src = f"def _program({args}):\n{body}    return {loss_np}, {{{values}}}\n"
        self._np_code = compile(src, "<numpy program>", "exec")
        self._tg_code = compile(
            "\n".join(line for _, _, line, _ in stmts) + f"\nloss = {loss_tg}\n",
            "<tapegrad program>",
            "exec",
        )

    @property
    def kinds(self) -> list:
        return [k for _, k, _, _ in self.stmts]

    def __repr__(self) -> str:
        out = [
            "",
            "# --- tapegrad program (paste into Python) ---",
            "import numpy as np",
            "import tapegrad as tg",
        ]
        for name, value in self.leaves:
            out.append(
                f"{name} = tg.tensor({_arr_src(value)}, requires_grad=True)  # shape {value.shape}"
            )
        for name, value in self.consts.items():
            out.append(f"{name} = {_arr_src(value)}")
        out += [line for _, _, line, _ in self.stmts]
        out.append(f"loss = {self.loss_tg}")
        out.append("# --- the same program in NumPy (the reference) ---")
        out += [f"# {line}" for _, _, _, line in self.stmts]
        out.append(f"# loss = {self.loss_np}")
        return "\n".join(out)

    # -- running
    def run_tg(self, leaf_values=None) -> dict:
        values = leaf_values if leaf_values is not None else [v for _, v in self.leaves]
        ns = {"np": np, "tg": tg, **self.consts}
        for (name, _), v in zip(self.leaves, values):
            ns[name] = tg.tensor(np.array(v, dtype=np.float64), requires_grad=True)
        exec(self._tg_code, ns)
        return ns

    def np_function(self, exact_casts: bool):
        ns = _np_namespace(exact_casts)
        ns.update(self.consts)
        exec(self._np_code, ns)
        return ns["_program"]

    def leaf_tensors(self, ns: dict) -> list:
        return [ns[name] for name, _ in self.leaves]


class _Gen:
    """Builds one Program from hypothesis draws, evaluating the NumPy side as it goes."""

    def __init__(self, draw, kinds, force):
        self.draw = draw
        self.kinds = kinds
        self.force = force
        self.ns = _np_namespace(exact_casts=True)
        self.order: list[str] = []  # every value name, leaves and statements, in creation order
        self.leaves: list = []
        self.consts: dict = {}
        self.stmts: list = []
        self.used: set = set()

    # -- draws
    def choice(self, seq):
        return self.draw(st.sampled_from(list(seq)))

    def integer(self, lo, hi):
        return self.draw(st.integers(lo, hi))

    def flag(self):
        return self.draw(st.booleans())

    # -- values
    def value(self, src: str) -> np.ndarray:
        return np.asarray(eval(src, self.ns))

    def shape_of(self, src: str) -> tuple:
        return self.value(src).shape

    def new_leaf(self, shape) -> str:
        shape = tuple(shape)
        name = f"x{len(self.leaves)}"
        if int(np.prod(shape)) > MAX_ELEMS:
            reject()
        ints = self.draw(hnp.arrays(np.int64, shape, elements=st.integers(-2000, 2000)))
        value = np.asarray(ints / 1000.0, dtype=np.float64).reshape(shape)
        self.leaves.append((name, value))
        self.ns[name] = value
        self.order.append(name)
        return name

    def const(self, value) -> str:
        name = f"c{len(self.consts)}"
        self.consts[name] = value
        self.ns[name] = value
        return name

    def weights(self, shape) -> str:
        ints = self.draw(hnp.arrays(np.int64, shape, elements=st.integers(-1000, 1000)))
        return self.const(np.asarray(ints / 1000.0, dtype=np.float64).reshape(shape))

    def mask(self, shape, at_least_one=True) -> str:
        m = self.draw(hnp.arrays(np.bool_, shape))
        m = np.asarray(m).reshape(shape)
        if at_least_one and not m.any():
            m.flat[0] = True
        return self.const(m)

    # -- shapes
    def base_shape(self, min_ndim=0):
        ndim = self.integer(min_ndim, 3)
        shape = tuple(self.integer(1, 4) for _ in range(ndim))
        while int(np.prod(shape)) > MAX_LEAF_ELEMS:
            shape = shape[1:]
        return shape

    def sub_broadcast(self, shape):
        """A shape that broadcasts to `shape`: leading axes dropped, some axes set to 1."""
        shape = tuple(shape)
        shape = shape[self.integer(0, len(shape)) :] if shape and self.flag() else shape
        return tuple(1 if n > 1 and self.flag() else n for n in shape)

    def broadcast_partner(self, shape):
        """A shape broadcast-compatible with `shape` (may grow size-1 axes or add one in front)."""
        shape = tuple(shape)
        out = [1 if n > 1 and self.flag() else (self.integer(1, 3) if n == 1 else n) for n in shape]
        if len(out) < 3 and self.flag():
            out.insert(0, self.integer(1, 3))
        elif out and self.flag():
            out = out[self.integer(0, len(out)) :]
        out = tuple(out)
        if (
            int(np.prod(out)) > MAX_LEAF_ELEMS
            or int(np.prod(np.broadcast_shapes(out, shape))) > MAX_ELEMS
        ):
            return self.sub_broadcast(shape)
        return out

    # -- operands
    def pick(self, pred=lambda shape: True, new_shape=None) -> str:
        """An existing value (most recent first) whose shape satisfies pred, or a new leaf."""
        cands = [n for n in reversed(self.order) if pred(self.shape_of(n))]
        if cands and (new_shape is None or self.integer(0, 5) > 0):
            name = cands[self.integer(0, len(cands) - 1)]
        else:
            name = self.new_leaf(new_shape if new_shape is not None else self.base_shape())
        self.used.add(name)
        return name

    def partner(self, shape, allow_scalar=True, allow_const=True, exact=False):
        """A second operand for an elementwise op with `shape`: (src_tg, src_np, is_tensor).

        exact: the partner must broadcast *to* `shape`: "inplace" (x += p) or "assign" (x[i] = p,
        where NumPy also drops leading size-1 axes of the value, unless the target is 0-d)."""

        def fits(s):
            if exact == "assign" and len(shape):
                while len(s) > len(shape) and s[0] == 1:
                    s = s[1:]
            try:
                b = np.broadcast_shapes(s, shape)
            except ValueError:
                return False
            return b == tuple(shape) if exact else int(np.prod(b)) <= MAX_ELEMS

        kinds = (
            ["node", "leaf"]
            + (["scalar"] if allow_scalar else [])
            + (["const"] if allow_const else [])
        )
        kind = self.choice(kinds)
        if kind == "scalar":
            s = _fmt(self.choice([0.5, -1.5, 2.0, 0.25, -0.75]))
            return s, s, False
        if kind == "const":
            shape2 = self.sub_broadcast(shape) if exact else self.broadcast_partner(shape)
            c = self.weights(shape2)
            return c, c, False
        if kind == "node":
            cands = [n for n in reversed(self.order) if fits(self.shape_of(n))]
            if cands:
                name = cands[self.integer(0, len(cands) - 1)]
                self.used.add(name)
                return name, name, True
        shape2 = self.sub_broadcast(shape) if exact else self.broadcast_partner(shape)
        if exact == "assign" and len(shape) and self.integer(0, 3) == 0:
            shape2 = (1,) + shape2
        name = self.new_leaf(shape2)
        self.used.add(name)
        return name, name, True

    # -- adapters: rewrite an operand (text on both sides) to keep the op in its safe domain
    def scaled(self, tg_src, np_src, bound):
        m = float(np.max(np.abs(self.value(np_src)), initial=0.0))
        if m <= bound:
            return tg_src, np_src
        s = _fmt(2.0 ** -math.ceil(math.log2(m / bound)))
        return f"({tg_src} * {s})", f"({np_src} * {s})"

    @staticmethod
    def shifted(tg_src, np_src, b):
        if b == 0:
            return tg_src, np_src
        op = "+" if b > 0 else "-"
        return f"({tg_src} {op} {_fmt(abs(b))})", f"({np_src} {op} {_fmt(abs(b))})"

    def positive(self, tg_src, np_src, lo=0.5, hi=4.0):
        """Operand scaled to |x| <= hi, then shifted so that min >= lo."""
        tg_src, np_src = self.scaled(tg_src, np_src, hi)
        m = float(np.min(self.value(np_src), initial=lo))
        b = 0.0 if m >= lo else math.ceil((lo - m) * 4) / 4
        return self.shifted(tg_src, np_src, b)

    def avoid(self, points, target, delta=KINK):
        """A number near target at distance >= delta from every point."""
        p = np.unique(np.asarray(points, dtype=np.float64).ravel())

        def ok(c):
            return p.size == 0 or float(np.min(np.abs(p - c))) >= delta

        if ok(target):
            return float(target)
        cands = [p[0] - 2 * delta, p[-1] + 2 * delta] + [
            (lo + hi) / 2 for lo, hi in zip(p[:-1], p[1:]) if hi - lo >= 3 * delta
        ]
        best = min(cands, key=lambda c: abs(c - target))
        for digits in (2, 3, 4, 6):
            r = round(best, digits)
            if ok(r) and abs(r) < 1e3:
                return float(r)
        return float(best)

    def kink_shift(self, tg_src, np_src, target):
        """Operand shifted so that no element is within KINK of 0."""
        b = self.avoid(-self.value(np_src), target)
        return self.shifted(tg_src, np_src, b)

    # -- emitting statements
    def emit(self, kind, tg_rhs, np_rhs, tg_full=None):
        name = f"v{len(self.stmts)}"
        tg_line = tg_full.format(out=name) if tg_full else f"{name} = {tg_rhs}"
        np_line = f"{name} = {np_rhs}"
        exec(np_line, self.ns)
        v = np.asarray(self.ns[name])
        if not np.all(np.isfinite(v)) or np.max(np.abs(v), initial=0.0) > 1e6 or v.size == 0:
            reject()
        self.stmts.append((name, kind, tg_line, np_line))
        self.order.append(name)
        return name

    # -- the program
    def build(self, max_stmts):
        base = self.base_shape(min_ndim=1)
        for _ in range(self.integer(1, 3)):
            self.new_leaf(self.sub_broadcast(base))
        n = self.integer(min(3, max_stmts), max_stmts)
        for i in range(n):
            kind = self.force if (self.force and i == 0) else self.choice(self.kinds)
            getattr(self, "op_" + kind)(kind)
        sinks = [n for n in self.order if n not in self.used]
        terms_tg, terms_np = [], []
        for name in sinks:
            w = self.weights(self.shape_of(name))
            terms_tg.append(f"({name} * {w}).sum()")
            terms_np.append(f"np.sum({name} * {w})")
        return Program(
            self.leaves, self.consts, self.stmts, " + ".join(terms_tg), " + ".join(terms_np)
        )

    # ---- elementwise -----------------------------------------------------------------------
    def _binary(self, kind, sym, fn):
        a = self.pick()
        a_tg, a_np = self.scaled(a, a, 8.0)
        p_tg, p_np, is_t = self.partner(self.shape_of(a))
        p_tg, p_np = self.scaled(p_tg, p_np, 8.0) if is_t else (p_tg, p_np)
        form = self.choice(["op", "rop", "fn"] if is_t else ["op", "rop"])
        if form == "op":
            return self.emit(kind, f"{a_tg} {sym} {p_tg}", f"{a_np} {sym} {p_np}")
        if form == "rop":
            return self.emit(kind, f"{p_tg} {sym} {a_tg}", f"{p_np} {sym} {a_np}")
        return self.emit(kind, f"tg.{fn}({a_tg}, {p_tg})", f"{a_np} {sym} {p_np}")

    def op_add(self, kind):
        return self._binary(kind, "+", "add")

    def op_sub(self, kind):
        return self._binary(kind, "-", "sub")

    def op_mul(self, kind):
        return self._binary(kind, "*", "mul")

    def op_neg(self, kind):
        a = self.pick()
        if self.flag():
            return self.emit(kind, f"-{a}", f"-{a}")
        return self.emit(kind, f"tg.neg({a})", f"-{a}")

    def _denominator(self, tg_src, np_src):
        """Shifted so that every element has |x| >= 0.5."""
        tg_src, np_src = self.scaled(tg_src, np_src, 4.0)
        b = self.avoid(-self.value(np_src), self.choice([0.0, 1.0, -1.0]), delta=0.5)
        return self.shifted(tg_src, np_src, b)

    def op_div(self, kind):
        a = self.pick()
        a_tg, a_np = self.scaled(a, a, 8.0)
        form = self.choice(["tensor", "scalar", "rscalar", "fn"])
        if form == "scalar":
            s = _fmt(self.choice([2.0, -0.5, 4.0, 1.5]))
            return self.emit(kind, f"{a_tg} / {s}", f"{a_np} / {s}")
        if form == "rscalar":
            d_tg, d_np = self._denominator(a_tg, a_np)
            s = _fmt(self.choice([1.0, -2.0, 0.5]))
            return self.emit(kind, f"{s} / {d_tg}", f"{s} / {d_np}")
        p_tg, p_np, is_t = self.partner(self.shape_of(a), allow_scalar=False)
        d_tg, d_np = self._denominator(p_tg, p_np)
        if form == "fn":
            return self.emit(kind, f"tg.div({a_tg}, {d_tg})", f"{a_np} / {d_np}")
        if self.flag():
            return self.emit(kind, f"{a_tg} / {d_tg}", f"{a_np} / {d_np}")
        n_tg, n_np = self._denominator(a_tg, a_np)  # tensor (or const) over tensor, reflected
        return self.emit(kind, f"{p_tg} / {n_tg}", f"{p_np} / {n_np}")

    def op_pow(self, kind):
        a = self.pick()
        form = self.choice(["int", "float", "tensor", "rscalar", "fn"])
        if form == "int":
            a_tg, a_np = self.scaled(a, a, 3.0)
            e = self.choice(["2", "3", "1"])
            return self.emit(kind, f"{a_tg} ** {e}", f"{a_np} ** {e}")
        if form == "float":
            b_tg, b_np = self.positive(a, a)
            e = _fmt(self.choice([0.5, 1.5, -1.0, -0.5, 2.5]))
            return self.emit(kind, f"{b_tg} ** {e}", f"{b_np} ** {e}")
        if form == "rscalar":
            a_tg, a_np = self.scaled(a, a, 3.0)
            s = _fmt(self.choice([2.0, 0.5, 3.0]))
            return self.emit(kind, f"{s} ** {a_tg}", f"{s} ** {a_np}")
        b_tg, b_np = self.positive(a, a)
        p_tg, p_np, is_t = self.partner(self.shape_of(a), allow_scalar=False)
        p_tg, p_np = self.scaled(p_tg, p_np, 2.0)
        if form == "fn":
            return self.emit(kind, f"tg.pow({b_tg}, {p_tg})", f"{b_np} ** {p_np}")
        return self.emit(kind, f"{b_tg} ** {p_tg}", f"{b_np} ** {p_np}")

    def _unary(self, kind, np_fn, bound, method=None):
        a = self.pick()
        a_tg, a_np = self.scaled(a, a, bound)
        method = method or kind
        if self.flag():
            return self.emit(kind, f"{a_tg}.{method}()", f"{np_fn}({a_np})")
        return self.emit(kind, f"tg.{method}({a_tg})", f"{np_fn}({a_np})")

    def op_exp(self, kind):
        return self._unary(kind, "np.exp", 3.0)

    def op_sin(self, kind):
        return self._unary(kind, "np.sin", 8.0)

    def op_cos(self, kind):
        return self._unary(kind, "np.cos", 8.0)

    def op_tan(self, kind):
        return self._unary(kind, "np.tan", 1.2)

    def op_tanh(self, kind):
        return self._unary(kind, "np.tanh", 8.0)

    def op_sigmoid(self, kind):
        a = self.pick()
        a_tg, a_np = self.scaled(a, a, 8.0)
        ref = f"(1 / (1 + np.exp(-{a_np})))"
        if self.flag():
            return self.emit(kind, f"{a_tg}.sigmoid()", ref)
        return self.emit(kind, f"tg.sigmoid({a_tg})", ref)

    def op_log(self, kind):
        a = self.pick()
        b_tg, b_np = self.positive(a, a)
        if self.flag():
            return self.emit(kind, f"{b_tg}.log()", f"np.log({b_np})")
        return self.emit(kind, f"tg.log({b_tg})", f"np.log({b_np})")

    def op_sqrt(self, kind):
        a = self.pick()
        b_tg, b_np = self.positive(a, a)
        if self.flag():
            return self.emit(kind, f"{b_tg}.sqrt()", f"np.sqrt({b_np})")
        return self.emit(kind, f"tg.sqrt({b_tg})", f"np.sqrt({b_np})")

    def _kinked_unary(self, kind, np_fn, forms):
        a = self.pick()
        a_tg, a_np = self.scaled(a, a, 8.0)
        a_tg, a_np = self.kink_shift(a_tg, a_np, self.choice([0.0, 0.5, -0.5]))
        form = self.choice(forms)
        return self.emit(kind, form.format(a_tg), f"{np_fn}({a_np})")

    def op_relu(self, kind):
        return self._kinked_unary(kind, "relu", ["{}.relu()", "tg.relu({})"])

    def op_leaky_relu(self, kind):
        slope = self.choice([0.01, 0.2, 1.5, -0.5])
        forms = [f"tg.nn.functional.leaky_relu({{}}, {slope})", f"tg.nn.LeakyReLU({slope})({{}})"]
        return self._kinked_unary(kind, f"(lambda v: np.where(v > 0, v, {slope} * v))", forms)

    def op_abs(self, kind):
        return self._kinked_unary(kind, "np.abs", ["{}.abs()", "tg.abs({})", "abs({})"])

    def op_sign(self, kind):
        return self._kinked_unary(kind, "np.sign", ["{}.sign()", "tg.sign({})"])

    def _extremum(self, kind):
        a = self.pick()
        a_tg, a_np = self.scaled(a, a, 8.0)
        p_tg, p_np, is_t = self.partner(self.shape_of(a), allow_const=True)
        npf = "np.maximum" if kind == "maximum" else "np.minimum"
        if not is_t and p_tg[0] != "c":  # a scalar: choose it away from a's values
            s = _fmt(self.avoid(self.value(a_np), float(p_tg)))
            form = self.choice([f"{a_tg}.{kind}({s})", f"tg.{kind}({a_tg}, {s})"])
            return self.emit(kind, form, f"{npf}({a_np}, {s})")
        p_tg, p_np = self.scaled(p_tg, p_np, 8.0)
        diff = self.value(a_np) - self.value(p_np)
        b = self.avoid(diff, self.choice([0.0, 0.5, -0.5]))  # a - (p + b) never within KINK of 0
        p_tg, p_np = self.shifted(p_tg, p_np, b)
        form = self.choice(
            [f"{a_tg}.{kind}({p_tg})", f"tg.{kind}({a_tg}, {p_tg})", f"tg.{kind}({p_tg}, {a_tg})"]
        )
        return self.emit(kind, form, f"{npf}({a_np}, {p_np})")

    def op_maximum(self, kind):
        return self._extremum(kind)

    def op_minimum(self, kind):
        return self._extremum(kind)

    def op_clip(self, kind):
        a = self.pick()
        a_tg, a_np = self.scaled(a, a, 8.0)
        v = self.value(a_np)
        lo_q, hi_q = self.choice([(0.3, 0.7), (0.5, None), (None, 0.5), (0.1, 0.9)])
        lo = None if lo_q is None else self.avoid(v, float(np.quantile(v, lo_q)))
        hi = None if hi_q is None else self.avoid(v, float(np.quantile(v, hi_q)))
        if lo is not None and hi is not None and lo >= hi:
            hi = None
        lo_s, hi_s = (None if lo is None else _fmt(lo)), (None if hi is None else _fmt(hi))
        form = self.choice(["method", "fn", "kw"])
        if form == "method":
            src = f"{a_tg}.clip({lo_s}, {hi_s})"
        elif form == "fn":
            src = f"tg.clip({a_tg}, {lo_s}, {hi_s})"
        else:
            kws = ", ".join(f"{k}={s}" for k, s in (("min", lo_s), ("max", hi_s)) if s is not None)
            src = f"{a_tg}.clamp({kws})"
        return self.emit(kind, src, f"np.clip({a_np}, {lo_s}, {hi_s})")

    def op_where(self, kind):
        a = self.pick()
        p_tg, p_np, is_t = self.partner(self.shape_of(a), allow_const=False)
        out_shape = np.broadcast_shapes(self.shape_of(a), np.shape(self.value(p_np)))
        c_shape = (
            self.sub_broadcast(out_shape) if self.flag() else self.broadcast_partner(out_shape)
        )
        c = self.mask(c_shape, at_least_one=False)
        form = self.choice(["fn", "fn_swapped", "method"])
        if form == "fn_swapped":
            return self.emit(kind, f"tg.where({c}, {p_tg}, {a})", f"np.where({c}, {p_np}, {a})")
        if form == "method":
            return self.emit(kind, f"{a}.where({c}, {p_tg})", f"np.where({c}, {a}, {p_np})")
        return self.emit(kind, f"tg.where({c}, {a}, {p_tg})", f"np.where({c}, {a}, {p_np})")

    def op_cast(self, kind):
        a = self.pick()
        form = self.choice(
            [
                "{}.astype(tg.float32).astype(tg.float64)",
                "{}.to(tg.float32).double()",
                "{}.float().to(np.float64)",
                "{}.astype('float32').astype(float64_)",
            ]
        )
        form = form.replace("float64_", "tg.float64")
        return self.emit(kind, form.format(a), f"cast32({a})")

    # ---- matmul ------------------------------------------------------------------------------
    def op_linear(self, kind):
        a = self.pick(lambda s: len(s) >= 1, new_shape=self.choice([(3,), (2, 3), (2, 2, 3)]))
        sa = self.shape_of(a)
        m = self.integer(1, 3)
        if int(np.prod(sa[:-1], dtype=np.int64)) * m > MAX_ELEMS:
            reject()
        w, b = self.new_leaf((m, sa[-1])), self.new_leaf((m,))
        a_tg, a_np = self.scaled(a, a, 2.0)
        return self.emit(
            kind, f"tg.nn.functional.linear({a_tg}, {w}, {b})", f"np.matmul({a_np}, {w}.T) + {b}"
        )

    def op_matmul(self, kind):
        a = self.pick(lambda s: len(s) >= 1, new_shape=self.choice([(3,), (2, 3), (2, 2, 3)]))
        sa = self.shape_of(a)
        a_tg, a_np = self.scaled(a, a, 2.0)
        left = self.flag()  # a @ p, or p @ a
        k = sa[-1] if left else (sa[-2] if len(sa) >= 2 else sa[0])

        def result(s_left, s_right):
            try:
                r = np.matmul(np.zeros(s_left), np.zeros(s_right)).shape
            except ValueError:
                return None
            return r if int(np.prod(r)) <= MAX_ELEMS else None

        def fits(s):
            return len(s) >= 1 and (result(sa, s) if left else result(s, sa)) is not None

        cands = [n for n in reversed(self.order) if fits(self.shape_of(n))]
        if cands and self.flag():
            p = cands[self.integer(0, len(cands) - 1)]
            self.used.add(p)
        else:
            m = self.integer(1, 3)
            batch = sa[:-2] if len(sa) > 2 and self.flag() else ()
            shapes = [(k,), (k, m) if left else (m, k), batch + ((k, m) if left else (m, k))]
            p = self.new_leaf(self.choice(shapes))
        p_tg, p_np = self.scaled(p, p, 2.0)
        l_tg, l_np, r_tg, r_np = (a_tg, a_np, p_tg, p_np) if left else (p_tg, p_np, a_tg, a_np)
        form = self.choice(["{} @ {}", "tg.matmul({}, {})", "{}.matmul({})"])
        return self.emit(kind, form.format(l_tg, r_tg), f"np.matmul({l_np}, {r_np})")

    # ---- reductions --------------------------------------------------------------------------
    def axis_arg(self, ndim, allow_none=True, allow_tuple=True):
        if ndim == 0:
            return None
        kinds = (["none"] if allow_none else []) + ["int"] + (["tuple"] if allow_tuple else [])
        k = self.choice(kinds)
        if k == "none":
            return None
        if k == "int":
            return self.integer(-ndim, ndim - 1)
        axes = self.draw(st.lists(st.integers(0, ndim - 1), min_size=1, max_size=ndim, unique=True))
        return tuple(ax - ndim if self.flag() else ax for ax in axes)

    def _reduce_src(self, method, a_tg, axis, keepdims, fn_name=None):
        forms = ["method_kw", "method_pos", "dim_kw", "fn"]
        form = self.choice(forms)
        if axis is None and not keepdims and self.flag():
            return f"{a_tg}.{method}()"
        if form == "method_kw":
            return f"{a_tg}.{method}(axis={axis!r}, keepdims={keepdims})"
        if form == "method_pos":
            return f"{a_tg}.{method}({axis!r}, {keepdims})"
        if form == "dim_kw":
            return f"{a_tg}.{method}(dim={axis!r}, keepdim={keepdims})"
        return f"tg.{fn_name or method}({a_tg}, {axis!r}, keepdims={keepdims})"

    def _reduction(self, kind, np_fn, bound=8.0, max_reduced=None):
        a = self.pick()
        a_tg, a_np = self.scaled(a, a, bound)
        shape = self.shape_of(a)
        axis = self.axis_arg(len(shape))
        keepdims = self.flag()
        if max_reduced is not None:
            axes = range(len(shape)) if axis is None else np.atleast_1d(axis) % max(len(shape), 1)
            if int(np.prod([shape[i] for i in axes])) > max_reduced:
                axis, keepdims = (len(shape) - 1 if shape else None), keepdims
        src = self._reduce_src(kind, a_tg, axis, keepdims)
        return self.emit(kind, src, f"{np_fn}({a_np}, axis={axis!r}, keepdims={keepdims})")

    def op_sum(self, kind):
        return self._reduction(kind, "np.sum")

    def op_mean(self, kind):
        return self._reduction(kind, "np.mean")

    def op_prod(self, kind):
        return self._reduction(kind, "np.prod", bound=2.0, max_reduced=6)

    def op_logsumexp(self, kind):
        return self._reduction(kind, "lse")

    def op_var(self, kind):
        a = self.pick()
        a_tg, a_np = self.scaled(a, a, 8.0)
        shape = self.shape_of(a)
        axis = self.axis_arg(len(shape))
        keepdims = self.flag()
        axes = range(len(shape)) if axis is None else np.atleast_1d(axis) % max(len(shape), 1)
        n = int(np.prod([shape[i] for i in axes]))
        ddof = self.choice([0, 1]) if n > 1 else 0
        form = self.choice(["ddof", "unbiased", "correction", "fn", "positional"])
        if form == "positional":  # (PyTorch's var(dim, unbiased, keepdim))
            src = f"{a_tg}.var({axis!r}, {bool(ddof)}, {keepdims})"
        elif form == "ddof":
            src = f"{a_tg}.var({axis!r}, keepdims={keepdims}, ddof={ddof})"
        elif form == "unbiased":
            src = f"{a_tg}.var(dim={axis!r}, keepdim={keepdims}, unbiased={bool(ddof)})"
        elif form == "correction":
            src = f"{a_tg}.var(axis={axis!r}, keepdims={keepdims}, correction={ddof})"
        else:
            src = f"tg.var({a_tg}, {axis!r}, keepdim={keepdims}, ddof={ddof})"
        return self.emit(
            kind, src, f"np.var({a_np}, axis={axis!r}, keepdims={keepdims}, ddof={ddof})"
        )

    def _tie_gap(self, v, axis, kind):
        """Smallest gap between the extreme and the runner-up along the reduced axes."""
        if v.ndim == 0:
            return np.inf
        axes = tuple(range(v.ndim)) if axis is None else tuple(np.atleast_1d(axis) % v.ndim)
        moved = np.moveaxis(v, axes, tuple(range(v.ndim - len(axes), v.ndim)))
        flat = moved.reshape(moved.shape[: v.ndim - len(axes)] + (-1,))
        if flat.shape[-1] < 2:
            return np.inf
        s = np.sort(flat, axis=-1)
        gaps = (s[..., -1] - s[..., -2]) if kind == "max" else (s[..., 1] - s[..., 0])
        return float(np.min(gaps))

    def _extreme_reduction(self, kind):
        a = self.pick()
        a_tg, a_np = self.scaled(a, a, 8.0)
        shape = self.shape_of(a)
        axis = self.axis_arg(len(shape))
        keepdims = self.flag()
        if self._tie_gap(self.value(a_np), axis, kind) < KINK:
            # (near-)ties: the maximum is not differentiable there; reduce with sum instead
            src = self._reduce_src("sum", a_tg, axis, keepdims)
            return self.emit("sum", src, f"np.sum({a_np}, axis={axis!r}, keepdims={keepdims})")
        if isinstance(axis, int) and self.flag():  # PyTorch's form: (values, indices) along dim
            form = self.choice(
                [
                    f"{a_tg}.{kind}({axis}, {keepdims}).values",
                    f"tg.{kind}({a_tg}, dim={axis}, keepdim={keepdims})[0]",
                ]
            )
            return self.emit(kind, form, f"np.{kind}({a_np}, axis={axis}, keepdims={keepdims})")
        # amax/amin in any spelling; max/min with axis= (NumPy's form: the values)
        src = self._reduce_src("a" + kind, a_tg, axis, keepdims)
        if self.flag():
            src = f"{a_tg}.{kind}(axis={axis!r}, keepdims={keepdims})"
        return self.emit(kind, src, f"np.{kind}({a_np}, axis={axis!r}, keepdims={keepdims})")

    def op_max(self, kind):
        return self._extreme_reduction(kind)

    def op_min(self, kind):
        return self._extreme_reduction(kind)

    def _softmax(self, kind):
        a = self.pick(lambda s: len(s) >= 1, new_shape=(2, 3))
        a_tg, a_np = self.scaled(a, a, 8.0)
        ndim = len(self.shape_of(a))
        axis = self.integer(-ndim, ndim - 1)
        form = self.choice(
            ["{a}.{k}({ax})", "{a}.{k}(dim={ax})", "tg.{k}({a}, {ax})", "tg.{k}({a}, dim={ax})"]
        )
        return self.emit(kind, form.format(a=a_tg, k=kind, ax=axis), f"{kind}({a_np}, {axis})")

    def op_softmax(self, kind):
        return self._softmax(kind)

    def op_log_softmax(self, kind):
        return self._softmax(kind)

    # ---- shape -------------------------------------------------------------------------------
    def _factor_shape(self, size, avoid_shape):
        factors = []
        n, f = size, 2
        while n > 1:
            while n % f == 0:
                factors.append(f)
                n //= f
            f += 1
        for _ in range(4):
            ndim = self.integer(1, 4)
            dims = [1] * ndim
            for f in factors:
                dims[self.integer(0, ndim - 1)] *= f
            shape = tuple(dims)
            if shape != tuple(avoid_shape):
                return shape
        return tuple(avoid_shape) + (1,)

    def op_reshape(self, kind):
        a = self.pick()
        shape = self.shape_of(a)
        size = int(np.prod(shape))
        form = self.choice(
            ["varargs", "tuple", "minus1", "fn", "view", "flatten", "unsqueeze", "squeeze"]
        )
        if form == "flatten" and len(shape) != 1:
            return self.emit(kind, f"{a}.flatten()", f"np.reshape({a}, ({size},))")
        if form == "unsqueeze":
            ax = self.integer(-len(shape) - 1, len(shape))
            target = np.expand_dims(np.zeros(shape), ax).shape
            return self.emit(kind, f"{a}.unsqueeze({ax})", f"np.reshape({a}, {target!r})")
        if form == "squeeze" and 1 in shape:
            target = tuple(n for n in shape if n != 1)
            return self.emit(kind, f"tg.squeeze({a})", f"np.reshape({a}, {target!r})")
        target = self._factor_shape(size, shape)
        if form == "varargs" and target:
            src = f"{a}.reshape({', '.join(map(str, target))})"
        elif form == "minus1":
            i = self.integer(0, len(target) - 1)
            t2 = tuple(-1 if j == i else n for j, n in enumerate(target))
            src = f"{a}.reshape({t2!r})"
        elif form == "fn":
            src = f"tg.reshape({a}, {target!r})"
        elif form == "view" and _viewable(self.value(a), target):  # (else view rightly refuses)
            src = f"{a}.view({target!r})"
        else:
            src = f"{a}.reshape({target!r})"
        return self.emit(kind, src, f"np.reshape({a}, {target!r})")

    def op_transpose(self, kind):
        a = self.pick(lambda s: len(s) >= 2, new_shape=self.choice([(2, 3), (2, 1, 3)]))
        ndim = len(self.shape_of(a))
        perm = tuple(self.draw(st.permutations(range(ndim))))
        if perm == tuple(range(ndim)):
            perm = perm[1:] + perm[:1]
        form = self.choice(["permute_varargs", "permute_tuple", "swap", "T", "fn"])
        if form == "swap":
            i, j = self.draw(
                st.lists(st.integers(0, ndim - 1), min_size=2, max_size=2, unique=True)
            )
            perm = list(range(ndim))
            perm[i], perm[j] = perm[j], perm[i]
            return self.emit(
                kind,
                f"{a}.transpose({i - ndim if self.flag() else i}, {j})",
                f"np.transpose({a}, {tuple(perm)!r})",
            )
        if form == "T":
            return self.emit(kind, f"{a}.T", f"np.transpose({a})")
        if form == "permute_varargs":
            return self.emit(
                kind, f"{a}.permute({', '.join(map(str, perm))})", f"np.transpose({a}, {perm!r})"
            )
        if form == "fn":
            return self.emit(kind, f"tg.permute({a}, {perm!r})", f"np.transpose({a}, {perm!r})")
        return self.emit(kind, f"{a}.permute({perm!r})", f"np.transpose({a}, {perm!r})")

    def op_expand(self, kind):
        a = self.pick()
        shape = self.shape_of(a)
        target = [self.integer(2, 3) if n == 1 and self.flag() else n for n in shape]
        if len(target) < 3 and self.flag() or tuple(target) == shape:
            target.insert(0, self.integer(2, 3))
        target = tuple(target)
        if int(np.prod(target)) > MAX_ELEMS:
            target = (2,) + shape
        form = self.choice(["varargs", "tuple", "fn", "minus1"])
        if form == "varargs":
            src = f"{a}.expand({', '.join(map(str, target))})"
        elif form == "fn":
            src = f"tg.broadcast_to({a}, {target!r})"
        elif form == "minus1":
            lead = len(target) - len(shape)
            t2 = tuple(
                -1 if i >= lead and n == shape[i - lead] and self.flag() else n
                for i, n in enumerate(target)
            )
            src = f"{a}.expand({t2!r})"
        else:
            src = f"{a}.expand({target!r})"
        return self.emit(kind, src, f"np.broadcast_to({a}, {target!r})")

    def _slice(self, n):
        step = self.choice([1, 1, 2, -1, -2])
        start = self.choice([None, 0, 1, -1, -2])
        stop = self.choice([None, None, 1, -1, 3])
        if len(range(*slice(start, stop, step).indices(n))) == 0:
            return ":"
        parts = ["" if start is None else str(start), "" if stop is None else str(stop)]
        return ":".join(parts) + ("" if step == 1 else f":{step}")

    def index(self, shape, unique):
        """(tg_src, np_src, style) of an index into an array of `shape` (never empty)."""
        return self._index(shape, unique) + (self._index_style,)

    def _index(self, shape, unique):
        ndim = len(shape)
        style = self.choice(
            ["basic", "int_array", "tensor", "mask", "two_arrays"] if ndim else ["basic"]
        )
        self._index_style = style
        if style == "basic" or (style == "two_arrays" and ndim < 2):
            if ndim == 0:
                it = self.choice(["None", "...", "..., None"])
                return it, it
            k = self.integer(1, ndim)
            ellipsis = self.choice(["none", "back", "front"]) if k < ndim else "none"
            items = []
            for n in shape[ndim - k :] if ellipsis == "front" else shape[:k]:
                how = self.choice(["int", "slice", "full"])
                items.append(
                    str(self.integer(-n, n - 1))
                    if how == "int"
                    else self._slice(n)
                    if how == "slice"
                    else ":"
                )
            if self.flag():
                items.insert(self.integer(0, len(items)), "None")
            if ellipsis == "front":
                items.insert(0, "...")
            elif ellipsis == "back":
                items.append("...")
            s = ", ".join(items)
            return s, s
        if style in ("int_array", "tensor"):
            dim = self.integer(0, ndim - 1)
            n = shape[dim]
            if unique:
                pos = self.draw(
                    st.lists(st.integers(0, n - 1), min_size=1, max_size=n, unique=True)
                )
            else:
                pos = self.draw(st.lists(st.integers(0, n - 1), min_size=1, max_size=4))
            pos = [p - n if self.flag() else p for p in pos]  # negative indices too
            lead = ":, " * dim
            if style == "tensor":
                return f"{lead}tg.tensor({pos!r})", f"{lead}np.array({pos!r})"
            return f"{lead}{pos!r}", f"{lead}{pos!r}"
        if style == "mask":
            k = self.integer(1, ndim)
            m = self.mask(shape[:k])
            return (f"tg.tensor({m})" if self.flag() else m), m
        n0, n1 = shape[0], shape[1]
        pairs = self.draw(
            st.lists(
                st.tuples(st.integers(0, n0 - 1), st.integers(0, n1 - 1)),
                min_size=1,
                max_size=4,
                unique=unique,
            )
        )
        i0, i1 = [p[0] for p in pairs], [p[1] for p in pairs]
        return f"{i0!r}, {i1!r}", f"{i0!r}, {i1!r}"

    def op_getitem(self, kind):
        a = self.pick()
        i_tg, i_np = self.index(self.shape_of(a), unique=False)[:2]
        return self.emit(kind, f"{a}[{i_tg}]", f"{a}[{i_np}]")

    def op_setitem(self, kind):
        a = self.pick()
        i_tg, i_np, style = self.index(self.shape_of(a), unique=True)
        target = self.value(f"{a}[{i_np}]").shape
        # NumPy drops extra leading 1s of the value, except in boolean-mask assignment
        v_tg, v_np, _ = self.partner(target, exact="inplace" if style == "mask" else "assign")
        return self.emit(
            kind,
            None,
            f"setitem({a}, np.s_[{i_np}], {v_np})",
            tg_full=f"{{out}} = {a}.clone(); {{out}}[{i_tg}] = {v_tg}",
        )

    def op_inplace(self, kind):
        a = self.pick()
        a_tg, a_np = self.scaled(a, a, 8.0)
        p_tg, p_np, is_t = self.partner(self.shape_of(a), exact="inplace")
        op = self.choice(["+", "-", "*", "/"])
        if op == "/":
            p_tg, p_np = self._denominator(p_tg, p_np)
        else:
            p_tg, p_np = self.scaled(p_tg, p_np, 8.0)
        method = {"+": "add_", "-": "sub_", "*": "mul_", "/": "div_"}[op]
        stmt = self.choice([f"{{out}} {op}= {p_tg}", f"{{out}}.{method}({p_tg})"])
        return self.emit(
            kind, None, f"{a_np} {op} {p_np}", tg_full=f"{{out}} = {a_tg}.clone(); " + stmt
        )

    def op_log1p(self, kind):
        a = self.pick()
        b_tg, b_np = self.positive(a, a)
        return self.emit(kind, f"{b_tg}.log1p()", f"np.log1p({b_np})")

    def op_expm1(self, kind):
        return self._unary(kind, "np.expm1", 3.0)

    def op_fill(self, kind):
        """fill_ / zero_ of a part of a non-leaf (through a view) or of all of it: recorded, so the
        filled part gets no gradient and the rest does."""
        a = self.pick()
        shape = self.shape_of(a)
        s = _fmt(self.choice([0.0, 1.5, -0.5]))
        call = "zero_()" if s == "0.0" and self.flag() else f"fill_({s})"
        if not shape or self.flag():
            return self.emit(
                kind,
                None,
                f"np.full_like({a}, {s})",
                tg_full=f"{{out}} = {a} * 1.0; {{out}}.{call}",
            )
        i_tg, i_np, style = self.index(shape, unique=True)
        if style != "basic":  # (fill_ writes through views: basic indices)
            i_tg = i_np = ":"
        return self.emit(
            kind,
            None,
            f"setitem({a}, np.s_[{i_np}], {s})",
            tg_full=f"{{out}} = {a} * 1.0; {{out}}[{i_tg}].{call}",
        )

    def op_concatenate(self, kind):
        a = self.pick(lambda s: len(s) >= 1, new_shape=(2, 2))
        shape = self.shape_of(a)
        ndim = len(shape)
        axis = self.integer(-ndim, ndim - 1)
        ax = axis % ndim

        def fits(s):
            return len(s) == ndim and s[:ax] + s[ax + 1 :] == shape[:ax] + shape[ax + 1 :]

        parts = [a]
        for _ in range(self.integer(1, 2)):
            cands = [n for n in reversed(self.order) if fits(self.shape_of(n))]  # includes a
            if self.flag() and cands:
                p = cands[self.integer(0, len(cands) - 1)]
                self.used.add(p)
            else:
                p = self.new_leaf(shape[:ax] + (self.integer(1, 3),) + shape[ax + 1 :])
            parts.append(p)
        if self.flag():
            parts.reverse()
        total = sum(self.shape_of(p)[ax] for p in parts) * int(np.prod(shape)) // shape[ax]
        if total > MAX_ELEMS:
            parts = parts[:2]
        lst = ", ".join(parts)
        form = self.choice(["cat", "concatenate", "cat_dim"])
        src = {
            "cat": f"tg.cat([{lst}], axis={axis})",
            "concatenate": f"tg.concatenate(({lst}), {axis})",
            "cat_dim": f"tg.cat([{lst}], dim={axis})",
        }[form]
        return self.emit(kind, src, f"np.concatenate([{lst}], axis={axis})")

    def op_stack(self, kind):
        a = self.pick()
        shape = self.shape_of(a)
        parts = [a]
        for _ in range(self.integer(1, 2)):
            cands = [n for n in reversed(self.order) if self.shape_of(n) == shape]
            if self.flag() and cands:
                p = cands[self.integer(0, len(cands) - 1)]
                self.used.add(p)
            else:
                p = self.new_leaf(shape)
            parts.append(p)
        axis = self.integer(-len(shape) - 1, len(shape))
        lst = ", ".join(parts)
        return self.emit(kind, f"tg.stack([{lst}], {axis})", f"np.stack([{lst}], axis={axis})")

    # ---- convolution and pooling (any value, viewed as a one-channel image) -------------------
    def _image(self):
        a = self.pick(lambda s: len(s) >= 1 and s[-1] >= 2, new_shape=(3, 4))
        shape = self.shape_of(a)
        h, w = int(np.prod(shape)) // shape[-1], shape[-1]
        a_tg, a_np = self.scaled(a, a, 4.0)
        return f"{a_tg}.reshape(1, 1, {h}, {w})", f"{a_np}.reshape(1, 1, {h}, {w})", h, w

    def op_conv(self, kind):
        x_tg, x_np, h, w = self._image()
        pad, stride, c_out = self.integer(0, 1), self.integer(1, 2), self.integer(1, 2)
        kh, kw = self.integer(1, min(3, h + 2 * pad)), self.integer(1, min(3, w + 2 * pad))
        ho, wo = (h + 2 * pad - kh) // stride + 1, (w + 2 * pad - kw) // stride + 1
        if c_out * ho * wo > MAX_ELEMS:
            reject()
        k = self.new_leaf((c_out, 1, kh, kw))
        return self.emit(
            kind,
            f"tg.nn.functional_conv.conv2d({x_tg}, {k}, stride={stride}, padding={pad})",
            f"conv2d({x_np}, {k}, {stride}, {pad})",
        )

    def _pool(self, kind):
        x_tg, x_np, h, w = self._image()
        k, stride = self.integer(1, min(2, h, w)), self.integer(1, 2)
        if kind == "max_pool":
            top2 = np.sort(_np_windows(self.value(x_np), k, stride), axis=-1)[..., -2:]
            if k > 1 and np.min(top2[..., 1] - top2[..., 0]) < KINK:
                kind = "avg_pool"  # (near-)ties: max-pool is not differentiable there
        fn = "max_pool2d" if kind == "max_pool" else "avg_pool2d"
        return self.emit(
            kind,
            f"tg.nn.functional_pooling.{fn}({x_tg}, {k}, {stride})",
            f"{kind}({x_np}, {k}, {stride})",
        )

    def op_max_pool(self, kind):
        return self._pool(kind)

    def op_avg_pool(self, kind):
        return self._pool(kind)

    # ---- PyTorch's further names ---------------------------------------------------------------
    def op_erf(self, kind):
        return self._unary(kind, "erf", 3.0)

    def op_gelu(self, kind):
        """F.gelu (exact): x Phi(x), against 0.5 x (1 + erf(x / sqrt 2)) in NumPy."""
        a = self.pick()
        a_tg, a_np = self.scaled(a, a, 4.0)
        ref = f"(0.5 * {a_np} * (1 + erf({a_np} * {math.sqrt(0.5)!r})))"
        return self.emit(kind, f"tg.nn.functional.gelu({a_tg})", ref)

    def op_mse(self, kind):
        """F.mse_loss, mean or sum, of a value against another of its shape (or a new leaf)."""
        a = self.pick()
        shape = self.shape_of(a)
        b = self.pick(lambda s: s == shape, new_shape=shape)
        reduction = self.choice(["mean", "sum"])
        src = f"tg.nn.functional.mse_loss({a}, {b}, reduction={reduction!r})"
        return self.emit(kind, src, f"np.{reduction}(({a} - {b}) ** 2)")

    def op_rounding(self, kind):
        """floor/ceil/trunc/round: every element kept KINK away from the jumps (k/2: round's
        halves included), where the gradient is 0."""
        a = self.pick()
        a_tg, a_np = self.scaled(a, a, 4.0)
        halves = np.arange(-12, 13) / 2
        jumps = halves[None, :] - self.value(a_np).ravel()[:, None]
        a_tg, a_np = self.shifted(a_tg, a_np, self.avoid(jumps, self.choice([0.0, 0.25, 0.1])))
        fn = self.choice(["floor", "ceil", "trunc", "round"])
        form = self.choice(["{a}.{f}()", "tg.{f}({a})"])
        return self.emit(kind, form.format(a=a_tg, f=fn), f"np.{fn}({a_np})")

    def op_log10(self, kind):
        a = self.pick()
        b_tg, b_np = self.positive(a, a)
        form = self.choice(["{a}.log10()", "tg.log10({a})"])
        return self.emit(kind, form.format(a=b_tg), f"np.log10({b_np})")

    def op_log2(self, kind):
        a = self.pick()
        b_tg, b_np = self.positive(a, a)
        form = self.choice(["{a}.log2()", "tg.log2({a})"])
        return self.emit(kind, form.format(a=b_tg), f"np.log2({b_np})")

    def op_contiguous(self, kind):
        """A transposed matrix made contiguous, then viewed flat (the attention block's idiom)."""
        a = self.pick(lambda s: len(s) == 2, new_shape=(2, 3))
        n = int(np.prod(self.shape_of(a)))
        return self.emit(
            kind,
            f"{a}.t().contiguous().view({n})",
            f"np.reshape(np.transpose({a}), ({n},))",
        )

    def _divided(self, kind, op, np_fn, method=None):
        """a <op> c (or a.method(c)) for a positive constant c, every element kept KINK away from
        the multiples of c (where //, % and fmod jump)."""
        a = self.pick()
        a_tg, a_np = self.scaled(a, a, 4.0)
        c = self.choice([0.75, 1.5, 2.0])
        jumps = (np.arange(-12, 13) * c)[None, :] - self.value(a_np).ravel()[:, None]
        a_tg, a_np = self.shifted(a_tg, a_np, self.avoid(jumps, self.choice([0.0, 0.25, 0.1])))
        src = f"({a_tg}) {op} {c}" if method is None else f"({a_tg}).{method}({c})"
        return self.emit(kind, src, f"{np_fn}({a_np}, {c})")

    def op_floor_divide(self, kind):
        return self._divided(kind, "//", "np.floor_divide")

    def op_remainder(self, kind):
        return self._divided(kind, "%", "np.remainder")

    # ---- square systems ------------------------------------------------------------------------
    def op_square_system(self, kind):
        """inv, det, log |det|, solve, the triangular solve or the Cholesky factor of A A^T + I
        for a value A of small entries (so the matrix is positive-definite, far from singular)."""
        a = self.pick(
            lambda s: len(s) >= 2 and s[-2] <= 4, new_shape=self.choice([(2, 2), (3, 2), (2, 2, 3)])
        )
        sa = self.shape_of(a)
        m = sa[-2]
        a_tg, a_np = self.scaled(a, a, 0.5)
        m_tg = f"({a_tg} @ {a_tg}.mT + tg.eye({m}, dtype=tg.float64))"
        m_np = f"({a_np} @ np.swapaxes({a_np}, -1, -2) + np.eye({m}))"
        op = self.choice(["inv", "det", "slogdet", "solve", "solve_triangular", "cholesky"])
        if op in ("solve", "solve_triangular"):
            b = self.new_leaf(sa[:-1] + (self.integer(1, 2),))
            if op == "solve":
                return self.emit(
                    kind, f"tg.linalg.solve({m_tg}, {b})", f"np.linalg.solve({m_np}, {b})"
                )
            upper = self.flag()
            tri = f"np.{'triu' if upper else 'tril'}({m_np})"
            return self.emit(
                kind,
                f"tg.linalg.solve_triangular({m_tg}, {b}, upper={upper})",
                f"np.linalg.solve({tri}, {b})",
            )
        if op == "slogdet":
            return self.emit(
                kind, f"tg.linalg.slogdet({m_tg}).logabsdet", f"np.linalg.slogdet({m_np})[1]"
            )
        form = self.choice(["tg.linalg.{op}({m})", "{m}.{method}()"])
        method = {"inv": "inverse"}.get(op, op)
        return self.emit(kind, form.format(op=op, m=m_tg, method=method), f"np.linalg.{op}({m_np})")

    def op_eigh(self, kind):
        """The eigenvalues, or V f(L) V^T (no eigenvector sign matters), of S = A A^T + diag(1,
        2, ...) for a value A of entries up to 0.1: S's eigenvalues stay more than 1/2 apart."""
        a = self.pick(
            lambda s: len(s) >= 2 and s[-2] <= 3, new_shape=self.choice([(2, 2), (3, 2), (2, 2, 3)])
        )
        m = self.shape_of(a)[-2]
        a_tg, a_np = self.scaled(a, a, 0.1)
        diag = f"np.diag(np.arange(1.0, {m + 1}))"
        s_tg = f"({a_tg} @ {a_tg}.mT + tg.tensor({diag}))"
        s_np = f"({a_np} @ np.swapaxes({a_np}, -1, -2) + {diag})"
        if self.flag():
            return self.emit(kind, f"tg.linalg.eigvalsh({s_tg})", f"np.linalg.eigvalsh({s_np})")
        tg_rhs = f"(lambda r: (r[1] * r[0].unsqueeze(-2) ** 2) @ r[1].mT)(tg.linalg.eigh({s_tg}))"
        return self.emit(kind, tg_rhs, f"{s_np} @ {s_np}")

    def op_svd(self, kind):
        """The singular values, the pseudo-inverse, or U diag(S) Vh (no sign matters), of
        B = diag(1, 2, ...) + A
        (rectangular) for a value A of entries up to 0.05: B's singular values stay apart."""
        a = self.pick(
            lambda s: len(s) >= 2 and s[-2] <= 3 and s[-1] <= 3,
            new_shape=self.choice([(2, 3), (3, 2), (2, 2, 2)]),
        )
        rows, cols = self.shape_of(a)[-2:]
        a_tg, a_np = self.scaled(a, a, 0.05)
        diag = f"np.eye({rows}, {cols}) * np.arange(1.0, {cols + 1})"
        b_tg, b_np = f"({a_tg} + tg.tensor({diag}))", f"({a_np} + {diag})"
        form = self.choice(["svdvals", "pinv", "svd"])
        if form == "svdvals":
            return self.emit(
                kind, f"tg.linalg.svdvals({b_tg})", f"np.linalg.svd({b_np}, compute_uv=False)"
            )
        if form == "pinv":
            return self.emit(kind, f"tg.linalg.pinv({b_tg})", f"np.linalg.pinv({b_np})")
        tg_rhs = f"(lambda r: (r.U * r.S.unsqueeze(-2)) @ r.Vh)(tg.linalg.svd({b_tg}, False))"
        return self.emit(kind, tg_rhs, b_np)

    def op_qr(self, kind):
        """Q or R of B = I + 0.3 + A (tall, square or wide) for a value A of entries up to 0.1:
        B's leading columns stay well-conditioned, and no column is ever triangular already (at
        such a B, LAPACK's Householder QR switches sign: finite differences would straddle it)."""
        a = self.pick(
            lambda s: len(s) >= 2 and s[-2] <= 4 and s[-1] <= 4,
            new_shape=self.choice([(3, 2), (2, 2), (2, 3), (2, 3, 3)]),
        )
        rows, cols = self.shape_of(a)[-2:]
        a_tg, a_np = self.scaled(a, a, 0.1)
        base = f"(np.eye({rows}, {cols}) + 0.3)"
        b_tg, b_np = f"({a_tg} + tg.tensor({base}))", f"({a_np} + {base})"
        part = self.choice(["Q", "R"])
        index = "0" if part == "Q" else "1"
        return self.emit(kind, f"tg.linalg.qr({b_tg}).{part}", f"np.linalg.qr({b_np})[{index}]")

    def op_lu(self, kind):
        """P L U of a well-conditioned B = A + 2 I (rectangular too: its pivots chosen away from
        ties by A's entries), or lu_solve with it against NumPy's solve."""
        a = self.pick(
            lambda s: len(s) >= 2 and s[-2] <= 4 and s[-1] <= 4,
            new_shape=self.choice([(3, 2), (2, 2), (2, 3), (2, 3, 3)]),
        )
        rows, cols = self.shape_of(a)[-2:]
        a_tg, a_np = self.scaled(a, a, 0.5)
        eye = f"np.eye({rows}, {cols}) * 2"
        b_tg, b_np = f"({a_tg} + tg.tensor({eye}))", f"({a_np} + {eye})"
        if rows != cols or self.flag():
            tg_rhs = f"(lambda r: r.P @ r.L @ r.U)(tg.linalg.lu({b_tg}))"
            return self.emit(kind, tg_rhs, b_np)
        rhs = self.new_leaf(self.shape_of(a)[:-1] + (self.integer(1, 2),))
        tg_rhs = (
            f"(lambda f: tg.linalg.lu_solve(f.LU, f.pivots, {rhs}))(tg.linalg.lu_factor({b_tg}))"
        )
        return self.emit(kind, tg_rhs, f"np.linalg.solve({b_np}, {rhs})")

    def op_matrix_exp(self, kind):
        """exp of a square value scaled to entries up to 1/2 (the reference: its Taylor series)."""
        a = self.pick(
            lambda s: len(s) >= 2 and s[-2] == s[-1] and s[-1] <= 3,
            new_shape=self.choice([(2, 2), (3, 3), (2, 2, 2)]),
        )
        a_tg, a_np = self.scaled(a, a, 0.5)
        form = self.choice(["tg.linalg.matrix_exp({a})", "({a}).matrix_exp()"])
        return self.emit(kind, form.format(a=a_tg), f"expm({a_np})")

    # ---- transcendental -------------------------------------------------------------------------
    def op_hyperbolic(self, kind):
        fn, np_fn, bound = self.choice(
            [
                ("sinh", "np.sinh", 3.0),
                ("cosh", "np.cosh", 3.0),
                ("asinh", "np.arcsinh", 8.0),
                ("atan", "np.arctan", 8.0),
                ("exp2", "np.exp2", 4.0),
                ("sinc", "np.sinc", 3.0),
                ("erfc", "erfc", 3.0),
            ]
        )
        return self._unary(kind, np_fn, bound, method=fn)

    def op_inverse_trig(self, kind):
        """asin, acos, atanh inside (-0.9, 0.9), away from the poles of their derivatives."""
        a = self.pick()
        a_tg, a_np = self.scaled(a, a, 0.9)
        fn, np_fn = self.choice(
            [("asin", "np.arcsin"), ("acos", "np.arccos"), ("atanh", "np.arctanh")]
        )
        form = self.choice(["{a}.{fn}()", "tg.{fn}({a})", "{a}.arc{fn2}()"])
        return self.emit(kind, form.format(a=a_tg, fn=fn, fn2=fn[1:]), f"{np_fn}({a_np})")

    def op_acosh(self, kind):
        a = self.pick()
        b_tg, b_np = self.positive(a, a, lo=1.25)
        return self.emit(kind, f"{b_tg}.acosh()", f"np.arccosh({b_np})")

    def op_logit(self, kind):
        """logit of values in (0.05, 0.95); with eps, the clamp kept away from the values."""
        a = self.pick()
        a_tg, a_np = self.scaled(a, a, 0.9)
        p_tg, p_np = f"({a_tg} * 0.5 + 0.5)", f"({a_np} * 0.5 + 0.5)"
        if self.flag():
            return self.emit(kind, f"tg.logit({p_tg})", f"np.log({p_np} / (1 - {p_np}))")
        eps = self.avoid(
            np.concatenate([self.value(p_np).ravel(), 1 - self.value(p_np).ravel()]), 0.1
        )
        eps = min(max(eps, 0.01), 0.45)
        clamped = f"np.clip({p_np}, {eps!r}, {1 - eps!r})"
        return self.emit(kind, f"{p_tg}.logit(eps={eps!r})", f"np.log({clamped} / (1 - {clamped}))")

    def op_nan_to_num(self, kind):
        a = self.pick()
        return self.emit(kind, self.choice([f"{a}.nan_to_num()", f"tg.nan_to_num({a})"]), a)

    def op_two_argument(self, kind):
        a = self.pick()
        a_tg, a_np = self.scaled(a, a, 4.0)
        p_tg, p_np, _ = self.partner(self.shape_of(a), allow_scalar=False)
        p_tg, p_np = self.positive(p_tg, p_np)  # (away from the origin: atan2, hypot)
        fn, np_fn = self.choice(
            [("atan2", "np.arctan2"), ("hypot", "np.hypot"), ("logaddexp", "np.logaddexp")]
            + [("logaddexp2", "np.logaddexp2")]
        )
        form = self.choice(["{a}.{fn}({p})", "tg.{fn}({a}, {p})"])
        return self.emit(kind, form.format(a=a_tg, p=p_tg, fn=fn), f"{np_fn}({a_np}, {p_np})")

    # ---- special functions -----------------------------------------------------------------------
    def op_gamma_family(self, kind):
        """lgamma, digamma, polygamma(n) on [0.5, 4.5], away from the poles at 0, -1, ..."""
        a = self.pick()
        a_tg, a_np = self.positive(a, a, lo=0.5, hi=4.0)
        fn, np_fn = self.choice(
            [("lgamma()", "sp.gammaln({})"), ("digamma()", "sp.digamma({})")]
            + [("polygamma(1)", "sp.polygamma(1, {})"), ("polygamma(2)", "sp.polygamma(2, {})")]
        )
        return self.emit(kind, f"{a_tg}.{fn}", np_fn.format(a_np))

    def op_normal_inverse(self, kind):
        """erfinv inside (-0.9, 0.9), ndtri inside (0.05, 0.95)."""
        a = self.pick()
        a_tg, a_np = self.scaled(a, a, 0.9)
        if self.flag():
            return self.emit(kind, f"tg.erfinv({a_tg})", f"sp.erfinv({a_np})")
        p_tg, p_np = f"({a_tg} * 0.5 + 0.5)", f"({a_np} * 0.5 + 0.5)"
        return self.emit(kind, f"tg.special.ndtri({p_tg})", f"sp.ndtri({p_np})")

    def op_normal_cdf(self, kind):
        a = self.pick()
        a_tg, a_np = self.scaled(a, a, 6.0)
        fn = self.choice(["ndtr", "log_ndtr", "erfcx"])
        return self.emit(kind, f"tg.special.{fn}({a_tg})", f"sp.{fn}({a_np})")

    def op_bessel(self, kind):
        """i0, i1 and the scaled ones on [0.25, 6] (i0e and i1e have a kink at 0)."""
        a = self.pick()
        a_tg, a_np = self.positive(a, a, lo=0.25, hi=6.0)
        fn = self.choice(["i0", "i1", "i0e", "i1e"])
        return self.emit(kind, f"tg.special.{fn}({a_tg})", f"sp.{fn}({a_np})")

    def op_entropy_terms(self, kind):
        """entr(a) and zeta(2.5, a) with a in [0.5, 4]; xlog1py(a, p) with p in [0.5, 4]."""
        a = self.pick()
        form = self.choice(["entr", "xlog1py", "zeta"])
        if form != "xlog1py":
            p_tg, p_np = self.positive(a, a)
            tg_call = "entr({})" if form == "entr" else "zeta(2.5, {})"
            return self.emit(
                kind, "tg.special." + tg_call.format(p_tg), "sp." + tg_call.format(p_np)
            )
        p_tg, p_np, _ = self.partner(self.shape_of(a), allow_scalar=False, allow_const=False)
        p_tg, p_np = self.positive(p_tg, p_np)
        a_tg, a_np = self.scaled(a, a, 4.0)
        return self.emit(kind, f"tg.special.xlog1py({a_tg}, {p_tg})", f"sp.xlog1py({a_np}, {p_np})")

    def op_incomplete_gamma(self, kind):
        """gammainc(2.5, x) and gammaincc(2.5, x) for x in [0.5, 4] (a constant: no derivative)."""
        a = self.pick()
        p_tg, p_np = self.positive(a, a)
        fn = self.choice(["gammainc", "gammaincc"])
        return self.emit(kind, f"tg.special.{fn}(2.5, {p_tg})", f"sp.{fn}(2.5, {p_np})")

    def op_xlogy(self, kind):
        a = self.pick()
        a_tg, a_np = self.scaled(a, a, 4.0)
        p_tg, p_np, _ = self.partner(self.shape_of(a), allow_scalar=False)
        p_tg, p_np = self.positive(p_tg, p_np)
        return self.emit(kind, f"tg.xlogy({a_tg}, {p_tg})", f"{a_np} * np.log({p_np})")

    def op_fmod(self, kind):
        return self._divided(kind, "%", "np.fmod", method="fmod")

    def op_copysign(self, kind):
        a = self.pick()
        a_tg, a_np = self.scaled(a, a, 8.0)
        a_tg, a_np = self.kink_shift(a_tg, a_np, self.choice([0.0, 0.5]))
        sign = self.choice(["-1.0", "2.0", "tg.tensor([-1.0, 1.0]).sum() - 0.5"])
        sign_np = sign.replace("tg.tensor", "np.array")
        return self.emit(kind, f"{a_tg}.copysign({sign})", f"np.copysign({a_np}, {sign_np})")

    def op_fmax_fmin(self, kind):
        a = self.pick()
        a_tg, a_np = self.scaled(a, a, 8.0)
        p_tg, p_np, _ = self.partner(self.shape_of(a), allow_scalar=False)
        p_tg, p_np = self.scaled(p_tg, p_np, 8.0)
        diff = self.value(a_np) - self.value(p_np)
        p_tg, p_np = self.shifted(p_tg, p_np, self.avoid(diff, self.choice([0.0, 0.5])))
        fn = self.choice(["fmax", "fmin"])
        return self.emit(kind, f"tg.{fn}({a_tg}, {p_tg})", f"np.{fn}({a_np}, {p_np})")

    def op_cumsum(self, kind):
        a = self.pick(lambda s: len(s) >= 1, new_shape=(2, 3))
        ndim = len(self.shape_of(a))
        ax = self.integer(-ndim, ndim - 1)
        form = self.choice(["{a}.cumsum({ax})", "{a}.cumsum(dim={ax})", "tg.cumsum({a}, {ax})"])
        return self.emit(kind, form.format(a=a, ax=ax), f"np.cumsum({a}, axis={ax})")

    def op_cumprod(self, kind):
        a = self.pick(lambda s: len(s) >= 1, new_shape=(2, 3))
        a_tg, a_np = self.scaled(a, a, 2.0)
        ndim = len(self.shape_of(a))
        ax = self.integer(-ndim, ndim - 1)
        form = self.choice(["{a}.cumprod({ax})", "{a}.cumprod(dim={ax})", "tg.cumprod({a}, {ax})"])
        return self.emit(kind, form.format(a=a_tg, ax=ax), f"np.cumprod({a_np}, axis={ax})")

    def op_norm(self, kind):
        """layer_norm over the last axis (eps 0.1: well conditioned for finite differences)."""
        a = self.pick(lambda s: len(s) >= 1 and s[-1] >= 2, new_shape=(2, 3))
        n = self.shape_of(a)[-1]
        mean, var = f"({a}).mean(-1, keepdims=True)", f"({a}).var(-1, keepdims=True)"
        return self.emit(
            kind,
            f"tg.nn.functional.layer_norm({a}, ({n},), eps=0.1)",
            f"(({a}) - {mean}) / np.sqrt({var} + 0.1)",
        )

    def op_batch_norm(self, kind):
        """batch_norm in training with its affine (weight and bias new leaves) over (N, C, ...)
        with two or more values per channel (eps 0.1: well conditioned for finite
        differences)."""
        a = self.pick(lambda s: len(s) >= 2 and s[0] * int(np.prod(s[2:])) >= 2, new_shape=(3, 2))
        shape = self.shape_of(a)
        w, b = self.new_leaf((shape[1],)), self.new_leaf((shape[1],))
        axes = (0,) + tuple(range(2, len(shape)))
        per_channel = (1, shape[1]) + (1,) * (len(shape) - 2)
        mean, var = f"({a}).mean({axes}, keepdims=True)", f"({a}).var({axes}, keepdims=True)"
        return self.emit(
            kind,
            f"tg.nn.functional.batch_norm({a}, None, None, {w}, {b}, training=True, eps=0.1)",
            f"(({a}) - {mean}) / np.sqrt({var} + 0.1) * {w}.reshape({per_channel})"
            f" + {b}.reshape({per_channel})",
        )

    def op_attention(self, kind):
        """F.scaled_dot_product_attention with a value as the queries (L, E) and new key and value
        leaves; a float mask (a leaf: it has a gradient), a bool mask (every row keeps key 0, so
        no row is empty) or is_causal."""
        q = self.pick(lambda s: len(s) == 2, new_shape=(2, 3))
        length, features = self.shape_of(q)
        keys, width = self.integer(1, 3), self.integer(1, 3)
        if length * max(keys, width) > MAX_ELEMS:
            reject()
        k, v = self.new_leaf((keys, features)), self.new_leaf((keys, width))
        q_tg, q_np = self.scaled(q, q, 2.0)
        how = self.choice(["none", "float", "bool", "causal"])
        extra, mask_np = "", "None"
        if how == "float":
            mask_np = self.new_leaf((length, keys))
            extra = f", attn_mask={mask_np}"
        elif how == "bool":
            mask_np = self.mask((length, keys))
            self.ns[mask_np][:, 0] = True
            extra = f", attn_mask=tg.tensor({mask_np})"
        elif how == "causal":
            extra = ", is_causal=True"
        return self.emit(
            kind,
            f"tg.nn.functional.scaled_dot_product_attention({q_tg}, {k}, {v}{extra})",
            f"attention({q_np}, {k}, {v}, {mask_np}, {how == 'causal'})",
        )

    def op_recurrent_cell(self, kind):
        """A value (N, K) as a step's input: its gates c + x @ w.T (new leaves) through lstm_cell
        with a state of 2 or 7 rows, or gru_cell with hg a leaf and a state of 1 or 4 rows."""
        x = self.pick(lambda s: len(s) == 2, new_shape=(2, 3))
        n, k = self.shape_of(x)
        lstm, size = self.flag(), self.integer(1, 2)
        gates = (4 if lstm else 3) * size
        rows = self.choice([2, 7] if lstm else [1, 4])
        if n * size * (7 if lstm else 4) > MAX_ELEMS or max(n, k) * gates > MAX_LEAF_ELEMS:
            reject()
        c, w, state = (
            self.new_leaf((n, gates)),
            self.new_leaf((gates, k)),
            self.new_leaf((rows, n, size)),
        )
        x_tg, x_np = self.scaled(x, x, 2.0)
        gates_tg = f"tg.primitives.fused.addmm_nt({c}, {x_tg}, {w})"
        gates_np = f"({c} + np.matmul({x_np}, {w}.T))"
        if lstm:
            return self.emit(
                kind,
                f"tg.primitives.fused_recurrent.lstm_cell({gates_tg}, {state})",
                f"lstm_cell({gates_np}, {state})",
            )
        hg = self.new_leaf((n, gates))
        return self.emit(
            kind,
            f"tg.primitives.fused_recurrent.gru_cell({gates_tg}, {hg}, {state})",
            f"gru_cell({gates_np}, {hg}, {state})",
        )

    def op_einsum(self, kind):
        """a (its axes named a, b, c; a diagonal `aa` when the first two match) with a new leaf
        sharing some of those letters and perhaps one of its own (z), into a random output."""
        a = self.pick(lambda s: 1 <= len(s) <= 3, new_shape=(2, 3))
        shape = self.shape_of(a)
        a_tg, a_np = self.scaled(a, a, 2.0)
        term = "abc"[: len(shape)]
        if len(shape) >= 2 and shape[0] == shape[1] and self.flag():
            term = "a" + term[:1] + term[2:]  # a diagonal: a[i, i, ...]
        size = dict(zip(term, shape))
        shared = [c for c in dict.fromkeys(term) if self.flag()]
        other = shared + (["z"] if self.flag() or not shared else [])
        size["z"] = self.integer(1, 3)
        p = self.new_leaf(tuple(size[c] for c in other))
        letters = list(dict.fromkeys(term + "".join(other)))
        out = [c for c in self.draw(st.permutations(letters)) if self.flag()]
        while out and int(np.prod([size[c] for c in out])) > MAX_ELEMS:
            out.pop()
        eq = f"{term},{''.join(other)}" + ("" if self.flag() else "->" + "".join(out))
        return self.emit(kind, f"tg.einsum({eq!r}, {a_tg}, {p})", f"np.einsum({eq!r}, {a_np}, {p})")

    def op_nextafter(self, kind):
        a = self.pick()
        a_tg, a_np = self.scaled(a, a, 2.0)
        toward = self.choice(["-1.0", "3.0"])
        return self.emit(kind, f"{a_tg}.nextafter({toward})", f"np.nextafter({a_np}, {toward})")


@st.composite
def programs(draw, kinds=ALL_KINDS, max_stmts=8, force=None):
    return _Gen(draw, kinds, force).build(max_stmts)


# ---------------------------------------------------------------------------------------------
# Checks


def assert_close(actual, expected, what, rtol, atol):
    actual, expected = np.asarray(actual), np.asarray(expected)
    assert actual.shape == expected.shape, (
        f"{what}: shape {actual.shape} != expected {expected.shape}"
    )
    scale = max(1.0, float(np.max(np.abs(expected), initial=0.0)))
    if not np.allclose(actual, expected, rtol=rtol, atol=atol * scale):
        err = np.max(np.abs(actual - expected))
        raise AssertionError(
            f"{what}: max abs error {err:.3g} (scale {scale:.3g})\n"
            f"  tapegrad: {actual.tolist()}\n  expected: {expected.tolist()}"
        )


def tape_primitives(tensors) -> set:
    """Names of the primitives recorded on the tape behind `tensors`."""
    seen, names = set(), set()
    stack = [t.grad_fn for t in tensors if t is not None and t.grad_fn is not None]
    while stack:
        node = stack.pop()
        if node in seen:
            continue
        seen.add(node)
        names.add(node.prim.name)
        stack.extend(e for e in node.edges if isinstance(e, Node))
    return names


def _as_tuple(x):
    return x if isinstance(x, tuple) else (x,)


def _grads_or_zeros(grads, leaves):
    return [
        np.zeros(x.shape) if g is None else np.asarray(g.numpy()) for g, x in zip(grads, leaves)
    ]


def check_program(prog: Program) -> dict:
    """Values vs NumPy, first-order gradients vs finite differences, backward() vs grad()."""
    ns = prog.run_tg()
    leaves = prog.leaf_tensors(ns)
    ref_loss, ref_vals = prog.np_function(exact_casts=True)(*[v for _, v in prog.leaves])
    for name, kind, _, _ in prog.stmts:
        t = ns[name]
        assert isinstance(t, tg.Tensor), f"{name} ({kind}) is a {type(t).__name__}, not a Tensor"
        assert t.dtype == np.float64, f"{name} ({kind}) has dtype {t.dtype}, expected float64"
        assert t.requires_grad, f"{name} ({kind}) does not require grad"
        assert_close(t.numpy(), ref_vals[name], f"value of {name} ({kind})", 1e-10, 1e-10)
    loss = ns["loss"]
    assert loss.dtype == np.float64 and loss.shape == ()
    assert_close(loss.numpy(), ref_loss, "value of loss", 1e-10, 1e-10)

    grads = tg.autograd.grad(loss, leaves, allow_unused=True)
    for g, x in zip(grads, leaves):
        if g is not None:
            assert g.dtype == np.float64 and g.shape == x.shape, (
                f"grad of shape {g.shape} / dtype {g.dtype} for a leaf of shape {x.shape}"
            )
            assert g.grad_fn is None, "grad() without create_graph returned a tensor on the tape"
    ad = _grads_or_zeros(grads, leaves)

    f = prog.np_function(exact_casts=False)
    fd = finite_differences(lambda xs: f(*xs)[0], [v for _, v in prog.leaves])
    for (name, _), a, d in zip(prog.leaves, ad, fd):
        assert_close(a, d, f"d loss / d {name} (tape vs finite differences)", 1e-5, 1e-6)

    # the same graph, through backward() into .grad
    ns2 = prog.run_tg()
    ns2["loss"].backward()
    for (name, _), g in zip(prog.leaves, ad):
        got = ns2[name].grad
        got = np.zeros(g.shape) if got is None else got.numpy()
        assert_close(got, g, f"{name}.grad from backward() vs autograd.grad()", 1e-12, 1e-12)
    return ns


# ---------------------------------------------------------------------------------------------
# The properties


@settings(max_examples=budget(500))
@given(prog=programs(ALL_KINDS, max_stmts=10))
def test_random_programs_values_and_gradients(prog):
    check_program(prog)


@pytest.mark.parametrize("kind", ALL_KINDS)
@settings(max_examples=budget(8))
@given(data=st.data())
def test_each_op_kind(kind, data):
    """Every op kind leads at least a few programs (so none is left to chance) and is on the
    tape."""
    prog = data.draw(programs(ALL_KINDS, max_stmts=3, force=kind), label="program")
    ns = check_program(prog)
    prims = _as_tuple(KIND_PRIMS[prog.stmts[0][1]])
    recorded = tape_primitives([ns["loss"]])
    assert set(prims) & recorded, (
        f"{kind}: primitive {prims} not on the tape (found {sorted(recorded)})"
    )
    if kind == "getitem":  # getitem's backward records scatter_add (visible with create_graph)
        ns = prog.run_tg()
        v0 = ns[prog.stmts[0][0]]
        gs = tg.autograd.grad(
            (v0 * v0).sum(), prog.leaf_tensors(ns), create_graph=True, allow_unused=True
        )
        assert "scatter_add" in tape_primitives(gs)


# Primitives PyTorch has no derivative for (their rules raise): no program differentiates them;
# tests/test_householder.py checks their values and their error against torch.
NO_DERIVATIVE = {"geqrf_reflectors", "geqrf_tau"}


def test_generator_covers_the_rule_table():
    """Adding a primitive without teaching the program generator about it fails here."""
    reached = {p for ps in KIND_PRIMS.values() for p in _as_tuple(ps)} | set(BACKWARD_ONLY)
    reached |= NO_DERIVATIVE
    missing = sorted(set(REGISTRY) - reached)
    assert not missing, f"primitives the property programs never reach: {missing}"
    for kind in ALL_KINDS:
        assert hasattr(_Gen, "op_" + kind)


def _second_order_value(prog, leaf_values, weights):
    """S(x) = sum_i (R_i * g_i + Q_i * g_i**2) with g = tapegrad's first-order grads (NumPy out)."""
    ns = prog.run_tg(leaf_values)
    leaves = prog.leaf_tensors(ns)
    gs = _grads_or_zeros(tg.autograd.grad(ns["loss"], leaves, allow_unused=True), leaves)
    return sum(float(np.sum(r * g + q * g * g)) for g, (r, q) in zip(gs, weights))


@settings(max_examples=budget(150))
@given(prog=programs(SMOOTH_KINDS, max_stmts=6), data=st.data())
def test_random_programs_second_order(prog, data):
    weights = []
    for name, v in prog.leaves:
        r = data.draw(
            hnp.arrays(np.float64, v.shape, elements=st.floats(-1, 1, width=16)),
            label=f"R weights for d loss/d {name}",
        )
        q = data.draw(
            hnp.arrays(np.float64, v.shape, elements=st.floats(-1, 1, width=16)),
            label=f"Q weights for d loss/d {name}",
        )
        weights.append((np.asarray(r, dtype=np.float64), np.asarray(q, dtype=np.float64)))

    ns = prog.run_tg()
    leaves = prog.leaf_tensors(ns)
    gs = tg.autograd.grad(ns["loss"], leaves, create_graph=True, allow_unused=True)
    s = None
    for g, (r, q) in zip(gs, weights):
        if g is not None:
            term = (g * r).sum() + (g * g * q).sum()
            s = term if s is None else s + term
    if s is not None and s.requires_grad:
        hs = _grads_or_zeros(tg.autograd.grad(s, leaves, allow_unused=True), leaves)
    else:  # the gradients are constants: the second-order term is zero
        hs = [np.zeros(v.shape) for _, v in prog.leaves]

    fd = finite_differences(
        lambda xs: _second_order_value(prog, xs, weights), [v for _, v in prog.leaves], eps=1e-5
    )
    for (name, _), h, d in zip(prog.leaves, hs, fd):
        assert_close(h, d, f"d S / d {name} (second order, tape vs finite differences)", 1e-4, 1e-5)


def test_second_order_through_cast():
    """d2/dx2 sin(2 * cast64(cast32(x))) = -4 sin(2x): the cast's rule is recorded under
    create_graph."""
    x = tg.tensor(np.array([0.3, -1.2, 2.0]), requires_grad=True)
    y = (x.astype(tg.float32).astype(tg.float64) * 2.0).sin()
    (g,) = tg.autograd.grad(y.sum(), x, create_graph=True)
    assert g.dtype == np.float64 and g.requires_grad
    assert "cast" in tape_primitives([g])
    (h,) = tg.autograd.grad(g.sum(), x)
    expected = -4.0 * np.sin(2.0 * x.numpy().astype(np.float32).astype(np.float64))
    assert_close(h.numpy(), expected, "second derivative through a cast", 1e-6, 1e-6)


@settings(max_examples=budget(40))
@given(data=st.data())
def test_inplace_through_a_view_writes_through_or_refuses(data):
    """`v = b[idx]; v += c` changes b in NumPy and PyTorch. tapegrad must do the same (values and
    gradients), or refuse with an error; never leave b silently stale."""
    shape = data.draw(st.tuples(st.integers(2, 3), st.integers(2, 4)), label="shape")
    index = data.draw(
        st.sampled_from(
            [np.s_[0], np.s_[1:], np.s_[:, 0], np.s_[::2, 1:3], np.s_[-1, ::-1], np.s_[...]]
        ),
        label="index",
    )
    op = data.draw(st.sampled_from(["+=", "*=", "[...] ="]), label="op")
    a_np = np.arange(1.0, 1.0 + np.prod(shape)).reshape(shape)
    w = np.linspace(-1.0, 1.0, a_np.size).reshape(shape)

    def program(lib_b):
        view = lib_b[index]
        if op == "+=":
            view += 2.0
        elif op == "*=":
            view *= 3.0
        else:
            view[...] = 5.0
        return lib_b

    expected = program(a_np * 1.0)
    region = np.zeros(shape, dtype=bool)
    region[index] = True
    expected_grad = w * np.where(region, {"+=": 1.0, "*=": 3.0, "[...] =": 0.0}[op], 1.0)

    a = tg.tensor(a_np, requires_grad=True)
    try:
        b = program(a * 1.0)
        loss = (b * w).sum()
        (g,) = tg.autograd.grad(loss, a)
    except RuntimeError as e:  # refusing loudly is acceptable, if it says why
        assert "in-place" in str(e) or "view" in str(e), f"unclear error: {e}"
        return
    assert_close(b.numpy(), expected, f"b after `b[{index}] {op} ...` through a view", 0, 0)
    assert_close(
        g.numpy(), expected_grad, "d loss / d a after an in-place op through a view", 1e-12, 1e-12
    )
