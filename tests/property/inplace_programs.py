"""The random programs of the in-place / views / custom Functions property tests.

A program is written twice: tapegrad code (runnable on PyTorch too: `tg` is bound to the library)
and NumPy code with the same aliasing (NumPy's basic indexing, transposes and contiguous reshapes
are views too; a 0-d view is `b[1, ...]` there). Statements: copies of values, views of them
(before and after updates, siblings, views of views, 0-d views, expanded), in-place updates of
non-leaves and views (`+=`, `-=`, `*=`, `/=`, `add_`, `sub_`, `mul_`, `copy_`, `x[idx] = v` with
basic, list and mask indices, `fill_`, `zero_`), the custom Functions of `functions()` (saving an
input, an output, both inputs, intermediates returned as outputs, a backward that is itself a
Function), smooth ops, and empty tensors (size-0 slices through elementwise ops, sums, cat with
empty blocks, softmax/log_softmax/logsumexp over a size-0 axis). The loss weighs every value in its
final state.

`frozen` follows what PyTorch's ops save: a program that writes into saved memory `may_raise` the
in-place error; any other program must run. Test helpers only (imported by test_inplace_views.py).
"""

from __future__ import annotations

import math

import hypothesis.extra.numpy as hnp
import numpy as np
from hypothesis import reject
from hypothesis import strategies as st

MAX_ELEMS = 36  # elements per value
MAX_LEAF_ELEMS = 12  # per leaf (finite differences: 2 runs per element, 4 at second order)
SCALARS = (0.5, -1.5, 2.0, -0.25)


def functions(lib) -> dict:
    """The custom Functions of the programs, for `lib` = tapegrad or PyTorch."""

    class Square(lib.autograd.Function):  # saves its input
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return 2 * x * g

    class Exp(lib.autograd.Function):  # saves its output
        @staticmethod
        def forward(ctx, x):
            y = lib.exp(x)
            ctx.save_for_backward(y)
            return y

        @staticmethod
        def backward(ctx, g):
            (y,) = ctx.saved_tensors
            return y * g

    class Tanh(lib.autograd.Function):  # saves its output
        @staticmethod
        def forward(ctx, x):
            y = lib.tanh(x)
            ctx.save_for_backward(y)
            return y

        @staticmethod
        def backward(ctx, g):
            (y,) = ctx.saved_tensors
            return g * (1 - y * y)

    class Mul(lib.autograd.Function):  # saves both inputs
        @staticmethod
        def forward(ctx, x, y):
            ctx.save_for_backward(x, y)
            return x * y

        @staticmethod
        def backward(ctx, g):
            x, y = ctx.saved_tensors
            return g * y, g * x

    class Sinh(lib.autograd.Function):  # intermediates returned as outputs (the tutorial's)
        @staticmethod
        def forward(ctx, x):
            e, f = lib.exp(x), lib.exp(-x)
            ctx.save_for_backward(e, f)
            return (e - f) / 2, e, f

        @staticmethod
        def backward(ctx, g, ge, gf):
            e, f = ctx.saved_tensors
            return g * (e + f) / 2 + ge * e - gf * f

    class Cube(lib.autograd.Function):  # its backward is another Function (recorded)
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x**3

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return CubeBackward.apply(g, x)

    class CubeBackward(lib.autograd.Function):
        @staticmethod
        def forward(ctx, g, x):
            ctx.save_for_backward(g, x)
            return g * 3 * x**2

        @staticmethod
        def backward(ctx, gg):
            g, x = ctx.saved_tensors
            return gg * 3 * x**2, gg * g * 6 * x

    return {c.__name__: c for c in (Square, Exp, Tanh, Mul, Sinh, Cube)}


# name -> (NumPy reference, whether it saves its input (else its outputs), scale bound)
FUNCTIONS = {
    "Square": ("{0} ** 2", True, 4.0),
    "Exp": ("np.exp({0})", False, 2.0),
    "Tanh": ("np.tanh({0})", False, 4.0),
    "Cube": ("{0} ** 3", True, 2.0),
}


class Program:
    """A program written twice; its repr is the tapegrad program, ready to paste."""

    def __init__(self, leaves, consts, stmts, values, may_raise):
        self.leaves, self.consts, self.stmts = leaves, consts, stmts
        self.values, self.may_raise = values, may_raise  # (value names, in creation order)
        w = {v: f"w_{v}" for v in values}
        self.loss_tg = " + ".join(f"({v} * {w[v]}).sum()" for v in values)
        args = ", ".join(n for n, _ in leaves)
        body = "".join(f"    {np_line}\n" for _, tg_line, np_line in stmts)
        loss_np = " + ".join(f"np.sum({v} * {w[v]})" for v in values)
        out = ", ".join(f"{v!r}: {v}" for v in values)
        self._np = compile(
            f"def _program({args}):\n{body}    return {loss_np}, {{{out}}}\n", "<np>", "exec"
        )
        tg_src = "\n".join(line for _, line, _ in stmts) + f"\nloss = {self.loss_tg}\n"
        self._tg = compile(tg_src, "<tapegrad program>", "exec")

    def __repr__(self) -> str:
        lines = [
            "",
            "import numpy as np",
            "import tapegrad as tg",
            "# (Functions: see functions())",
        ]
        lines += [
            f"{n} = tg.tensor({v.tolist()!r}, dtype=tg.float64, requires_grad=True)"
            for n, v in self.leaves
        ]
        lines += [f"{n} = tg.tensor({v.tolist()!r})" for n, v in self.consts.items()]
        lines += [line for _, line, _ in self.stmts] + [f"loss = {self.loss_tg}"]
        lines += ["# NumPy reference:"] + [f"# {np_line}" for _, _, np_line in self.stmts]
        return "\n".join(lines) + f"\n# may raise the in-place error: {self.may_raise}"

    def run(self, lib, leaf_values=None) -> dict:
        values = leaf_values if leaf_values is not None else [v for _, v in self.leaves]
        ns = {"tg": lib, **functions(lib)}
        ns.update({n: lib.tensor(v) for n, v in self.consts.items()})
        for (name, _), v in zip(self.leaves, values):
            ns[name] = lib.tensor(np.array(v, dtype=np.float64), requires_grad=True)
        exec(self._tg, ns)
        return ns

    def numpy(self):
        ns = {"np": np, **self.consts}
        exec(self._np, ns)
        return ns["_program"]


class _Gen:
    """Builds one Program from hypothesis draws, running the NumPy side as it goes."""

    def __init__(self, draw, kinds):
        self.draw, self.kinds = draw, kinds
        self.ns: dict = {"np": np}
        self.leaves: list = []
        self.consts: dict = {}
        self.stmts: list = []
        self.order: list = []  # value names (leaves first), creation order
        self.root: dict = {}  # value -> the value whose memory it views (itself if none)
        self.readonly: set = set()  # leaves, views of leaves, expanded views
        self.frozen: set = set()  # roots whose memory a recorded op saved (PyTorch's rules)
        self.may_raise = False

    # -- draws and values
    def choice(self, seq):
        return self.draw(st.sampled_from(list(seq)))

    def integer(self, lo, hi):
        return self.draw(st.integers(lo, hi))

    def flag(self):
        return self.draw(st.booleans())

    def value(self, src):
        return np.asarray(eval(src, self.ns))

    def shape(self, name):
        return self.value(name).shape

    def new_leaf(self, shape):
        if int(np.prod(shape)) > MAX_LEAF_ELEMS or len(self.leaves) >= 4:
            reject()
        ints = self.draw(hnp.arrays(np.int64, shape, elements=st.integers(-1500, 1500)))
        name = f"x{len(self.leaves)}"
        self.ns[name] = np.asarray(ints / 1000.0, dtype=np.float64).reshape(shape)
        self.leaves.append((name, self.ns[name]))
        self.order.append(name)
        self.root[name] = name
        self.readonly.add(name)
        return name

    def const(self, value, prefix="c"):
        name = f"{prefix}{len(self.consts)}"
        self.consts[name] = self.ns[name] = value
        return name

    def base_shape(self):
        shape = tuple(self.integer(1, 3) for _ in range(self.integer(0, 3)))
        return shape if int(np.prod(shape)) <= MAX_LEAF_ELEMS else shape[1:]

    def sub_shape(self, shape):
        """A shape broadcasting to `shape` (leading axes dropped, some set to 1)."""
        shape = shape[self.integer(0, len(shape)) :] if self.flag() else shape
        return tuple(1 if self.flag() else n for n in shape)

    def pick(self, pred=lambda name: True):
        cands = [n for n in reversed(self.order) if pred(n)]
        if cands and self.integer(0, 4):
            return cands[self.integer(0, len(cands) - 1)]
        return self.new_leaf(self.base_shape())

    def scaled(self, name, bound):
        m = float(np.max(np.abs(self.value(name)), initial=0.0))
        return name if m <= bound else f"({name} * {2.0 ** -math.ceil(math.log2(m / bound))!r})"

    def partner(self, shape, avoid_root):
        """(tg_src, np_src, tensor name or None) broadcasting to `shape`, in other memory."""
        kind = self.choice(["scalar", "value", "leaf", "const"])
        if kind == "scalar":
            s = repr(self.choice(SCALARS))
            return s, s, None
        if kind == "value":
            fits = [n for n in self.order if self.root[n] != avoid_root and self._fits(n, shape)]
            if fits:
                p = self.choice(fits)
                return self.scaled(p, 4.0), self.scaled(p, 4.0), p
        if kind == "const":
            ints = self.draw(
                hnp.arrays(np.int64, self.sub_shape(shape), elements=st.integers(-8, 8))
            )
            c = self.const(np.asarray(ints / 4.0, dtype=np.float64))
            return c, c, None
        p = self.new_leaf(self.sub_shape(shape))
        return p, p, p

    def _fits(self, name, shape):
        s = self.shape(name)
        try:
            return np.broadcast_shapes(s, shape) == tuple(shape)
        except ValueError:
            return False

    # -- statements
    def emit(self, names, tg_line, np_line, root=None, frozen=(), readonly=False):
        exec(np_line, self.ns)
        for n in names:
            v = self.value(n)
            if v.size > MAX_ELEMS or not np.all(np.isfinite(v)) or np.max(abs(v), initial=0) > 1e3:
                reject()
            self.order.append(n)
            self.root[n] = root or n
            if readonly:
                self.readonly.add(n)
        self.frozen.update(frozen)
        self.stmts.append((names, tg_line, np_line))
        return names[0] if names else None

    def fresh_name(self, k=0):
        return f"v{len(self.order) - len(self.leaves) + k}"

    def writable(self):
        return [n for n in self.order if n not in self.readonly]

    def written(self, target):
        if self.root[target] in self.frozen:
            self.may_raise = True  # PyTorch raises at backward; tapegrad must raise or be right
        v = self.value(target)
        if not np.all(np.isfinite(v)) or np.max(np.abs(v), initial=0) > 1e3:
            reject()

    # ---- kinds
    def op_copy(self, a=None):
        a = a or self.pick()
        form = self.choice(["{} * 1.0", "{}.clone()", "{} + 0.0"])
        out = self.fresh_name()
        return self.emit((out,), f"{out} = {form.format(a)}", f"{out} = np.array({a}, copy=True)")

    def op_smooth(self, a=None):
        a = a or self.pick()
        out = self.fresh_name()
        form = self.choice(["scalar", "add", "sub", "mul", "exp", "sin", "tanh"])
        if form == "scalar":
            s = repr(self.choice(SCALARS))
            return self.emit((out,), f"{out} = {a} * {s}", f"{out} = np.asarray({a} * {s})")
        if form in ("exp", "sin", "tanh"):
            x = self.scaled(a, 2.0)
            frozen = {"exp": {out}, "tanh": {out}, "sin": {self.root[a]}}[form]
            return self.emit(
                (out,),
                f"{out} = tg.{form}({x})",
                f"{out} = np.asarray(np.{form}({x}))",
                frozen=frozen,
            )
        p_tg, p_np, p = self.partner(self.shape(a), avoid_root=None)
        sym = {"add": "+", "sub": "-", "mul": "*"}[form]
        frozen = {self.root[a]} | ({self.root[p]} if p else set()) if form == "mul" else ()
        return self.emit(
            (out,),
            f"{out} = {a} {sym} {p_tg}",
            f"{out} = np.asarray({a} {sym} {p_np})",
            frozen=frozen,
        )

    def op_function(self, a=None):
        a = a or self.pick()
        name = self.choice(list(FUNCTIONS) + ["Mul", "Sinh"])
        out = self.fresh_name()
        if name == "Sinh":
            x = self.scaled(a, 2.0)
            o = [self.fresh_name(k) for k in range(3)]
            return self.emit(
                tuple(o),
                f"{o[0]}, {o[1]}, {o[2]} = Sinh.apply({x})",
                f"{o[0]}, {o[1]}, {o[2]} = map(np.asarray, (np.sinh({x}), np.exp({x}), np.exp(-{x})))",  # noqa: E501
                frozen={o[1], o[2]},
            )
        if name == "Mul":
            fits = [n for n in self.order if self.shape(n) == self.shape(a)]
            b = self.choice(fits)  # (a itself is among them)
            return self.emit(
                (out,),
                f"{out} = Mul.apply({a}, {b})",
                f"{out} = np.asarray({a} * {b})",
                frozen={self.root[a], self.root[b]},
            )
        ref, saves_input, bound = FUNCTIONS[name]
        x = self.scaled(a, bound)
        frozen = {self.root[a]} if saves_input else {out}
        return self.emit(
            (out,),
            f"{out} = {name}.apply({x})",
            f"{out} = np.asarray({ref.format(x)})",
            frozen=frozen,
        )

    def basic_index(self, shape, allow_empty=False):
        items = []
        for n in shape[: self.integer(0, len(shape))]:
            how = self.choice(["int", "slice", "full"] + (["empty"] if allow_empty else []))
            how = how if n else "full"
            if how == "int":
                items.append(str(self.integer(-n, n - 1)))
            elif how == "slice":
                start, stop, step = self.integer(0, n - 1), self.integer(1, n), self.choice([1, 2])
                items.append(f"{start}:{max(stop, start + 1)}" + (":2" if step == 2 else ""))
            else:
                items.append("1:1" if how == "empty" else ":")
        if self.flag() and self.flag():
            items.insert(self.integer(0, len(items)), "None")
        tg_idx = ", ".join(items) if items else "..."
        np_idx = ", ".join(items + ["..."]) if items else "..."
        return tg_idx, np_idx

    def op_view(self, a=None):
        a = a or self.pick()
        shape, out = self.shape(a), self.fresh_name()
        forms = ["index", "index", "unsqueeze"]
        forms += ["transpose", "permute"] if len(shape) >= 2 else []
        forms += ["view"] if self.value(a).flags.c_contiguous else []
        forms += ["expand"]
        form = self.choice(forms)
        readonly = a in self.readonly
        if form == "index":
            t, n = self.basic_index(shape)
            tg_line, np_line = f"{out} = {a}[{t}]", f"{out} = {a}[{n}]"
        elif form == "unsqueeze":
            d = self.integer(-len(shape) - 1, len(shape))
            tg_line, np_line = f"{out} = {a}.unsqueeze({d})", f"{out} = np.expand_dims({a}, {d})"
        elif form == "transpose":
            i, j = self.integer(0, len(shape) - 1), self.integer(-len(shape), -1)
            tg_line, np_line = (
                f"{out} = {a}.transpose({i}, {j})",
                f"{out} = np.swapaxes({a}, {i}, {j})",
            )
        elif form == "permute":
            perm = tuple(self.draw(st.permutations(range(len(shape)))))
            tg_line, np_line = f"{out} = {a}.permute{perm}", f"{out} = np.transpose({a}, {perm})"
        elif form == "view":
            size = int(np.prod(shape))
            target = self.choice([(size,), (1, size), (size, 1)] + ([shape[::-1]] if shape else []))
            tg_line, np_line = f"{out} = {a}.view({target})", f"{out} = np.reshape({a}, {target})"
        else:
            target = (self.integer(1, 2),) + shape
            tg_line, np_line = (
                f"{out} = {a}.expand{target}",
                f"{out} = np.broadcast_to({a}, {target})",
            )
            readonly = True
        return self.emit((out,), tg_line, np_line, root=self.root[a], readonly=readonly)

    def target(self):
        """A value to write into: a non-leaf or a view of one (made if there is none)."""
        cands = self.writable()
        return self.choice(cands) if cands and self.integer(0, 3) else self.op_copy()

    def op_inplace(self, t=None):
        t = t or self.target()
        p_tg, p_np, p = self.partner(self.shape(t), avoid_root=self.root[t])
        op = self.choice(["+=", "-=", "*=", "add_", "sub_", "mul_", "copy_", "/="])
        if op == "/=":
            p_tg = p_np = repr(self.choice([2.0, -0.5, 4.0]))
        elif op == "copy_" and p_tg in map(repr, SCALARS):
            op = "+="  # (copy_ takes a tensor)
        elif op in ("*=", "mul_") and p is not None:
            p_tg = p_np = self.scaled(p, 2.0)
            self.frozen.add(self.root[p])  # mul saves its other factor
        np_op = {"add_": "+=", "sub_": "-=", "mul_": "*="}.get(op, op)
        tg_line = f"{t}.{op}({p_tg})" if op.endswith("_") else f"{t} {op} {p_tg}"
        np_line = f"{t}[...] = {p_np}" if op == "copy_" else f"{t} {np_op} {p_np}"
        self.emit((), tg_line, np_line)
        self.written(t)

    def op_setitem(self, t=None):
        t = t or self.target()
        shape = self.shape(t)
        style = self.choice(["basic", "list", "mask"] if shape and min(shape) else ["basic"])
        if style == "basic":
            tg_idx, np_idx = self.basic_index(shape, allow_empty=True)
        elif style == "list":
            d = self.integer(0, len(shape) - 1)
            pos = self.draw(st.lists(st.integers(0, shape[d] - 1), min_size=1, unique=True))
            tg_idx = np_idx = ":, " * d + repr(pos)
        else:
            m = np.asarray(self.draw(hnp.arrays(np.bool_, shape[:1])))
            tg_idx = np_idx = self.const(m, prefix="m")
        region = np.shape(self.value(f"{t}[{np_idx}]"))
        v_tg, v_np, _ = self.partner(region, avoid_root=self.root[t])
        self.emit((), f"{t}[{tg_idx}] = {v_tg}", f"{t}[{np_idx}] = {v_np}")
        self.written(t)

    def op_fill(self, t=None):
        t = t or self.target()
        s = self.choice([0.0, 1.5, -0.5])
        call = "zero_()" if s == 0.0 and self.flag() else f"fill_({s!r})"
        if self.flag():
            self.emit((), f"{t}.{call}", f"{t}[...] = {s!r}")
        else:
            tg_idx, np_idx = self.basic_index(self.shape(t), allow_empty=True)
            self.emit((), f"{t}[{tg_idx}].{call}", f"{t}[{np_idx}] = {s!r}")
        self.written(t)

    def op_dance(self):
        """A copy (or a Function's output), views of it before an update (siblings), the update,
        a view after."""
        if self.flag():
            b = self.op_copy()
        else:
            self.op_function()
            b = self.choice(self.stmts[-1][0])  # (one of its outputs)
        before = [self.op_view(b) for _ in range(self.integer(1, 2))]
        target = self.choice([b] + [v for v in before if v not in self.readonly])
        self.choice([self.op_inplace, self.op_setitem, self.op_fill])(target)
        if self.flag():
            self.op_view(b)

    def op_empty(self):
        a = self.pick(lambda n: len(self.shape(n)) >= 1)
        if not self.shape(a):
            a = self.new_leaf((2,))
        shape, out = self.shape(a), self.fresh_name()
        d = self.integer(0, len(shape) - 1)
        cut = ":, " * d + "0:0"
        empty_shape = shape[:d] + (0,) + shape[d + 1 :]
        form = self.choice(["elementwise", "sum", "cat", "softmax", "log_softmax", "logsumexp"])
        if form == "elementwise":
            e = f"{a}[{cut}]"
            tg_rhs, np_rhs = f"tg.exp({e}) * 2.0 + {e}", f"np.exp({e}) * 2.0 + {e}"
        elif form == "sum":
            tg_rhs, np_rhs = f"{a}[{cut}].sum({d})", f"np.sum({a}[{cut}], {d})"
        elif form == "cat":
            block = f"tg.zeros({empty_shape}, dtype=tg.float64)" if self.flag() else f"{a}[{cut}]"
            parts = [block, f"({a} * 2.0)"] + ([block] if self.flag() else [])
            parts = parts[::-1] if self.flag() else parts
            tg_rhs = f"tg.cat([{', '.join(parts)}], {d})"
            np_rhs = f"np.concatenate([np.zeros({empty_shape}), {a} * 2.0], {d})"
        elif form == "logsumexp":  # -inf over an empty axis; exp() of it is 0
            tg_rhs, np_rhs = (
                f"tg.logsumexp({a}[{cut}], {d}).exp()",
                f"np.zeros({shape[:d] + shape[d + 1 :]})",
            )
        else:
            tg_rhs, np_rhs = f"{a}[{cut}].{form}({d})", f"np.zeros({empty_shape})"
        # softmax, log_softmax and exp save their output
        frozen = {out} if form in ("softmax", "log_softmax", "logsumexp") else set()
        frozen |= {self.root[a]} if form == "logsumexp" else set()  # (PyTorch saves its input)
        return self.emit(
            (out,), f"{out} = {tg_rhs}", f"{out} = np.asarray({np_rhs})", frozen=frozen
        )

    def build(self, max_stmts):
        base = self.base_shape() or (2,)
        self.new_leaf(base)
        for _ in range(self.integer(2, max_stmts)):
            getattr(self, "op_" + self.choice(self.kinds))()
        values = [n for n in self.order if n not in dict(self.leaves)]
        for v in values:
            ints = self.draw(hnp.arrays(np.int64, self.shape(v), elements=st.integers(-8, 8)))
            self.consts[f"w_{v}"] = np.asarray(ints / 4.0, dtype=np.float64)
        return Program(self.leaves, self.consts, self.stmts, values, self.may_raise)


KINDS = ("copy", "view", "inplace", "setitem", "fill", "dance", "function", "smooth", "empty")


@st.composite
def programs(draw, kinds=KINDS, max_stmts=7):
    return _Gen(draw, kinds).build(max_stmts)
