"""The rule table reads as a textbook: what tg.autograd.formula shows is the textbook's rule, one
transpose notation (T(m), m^T in LaTeX) everywhere; the kernels that run instead (guards, speed
forms) show only with detail=True, and each equals its textbook rule wherever that is defined (on
arrays and recorded on Tensors), and PyTorch at the edges the textbook leaves undefined.

A kernel added without cases in KERNEL_CASES makes `test_every_kernel_has_cases` fail.
"""

from __future__ import annotations

import numpy as np
import pytest

import tapegrad as tg
from tapegrad._utils import unbroadcast_axes
from tapegrad.primitives import REGISTRY
from tapegrad.primitives.normalization import moments

F = tg.autograd.formula


def rules_of(text: str) -> dict[str, str]:
    """{input: rule} from a formula's `  dL/dx = ...` lines."""
    found = {}
    for line in text.splitlines():
        if line.startswith("  dL/d"):
            name, rule = line.strip()[len("dL/d") :].split(" = ", 1)
            found[name] = rule
    return found


# ---- what a student reads --------------------------------------------------------------------
def test_pow_linear_and_matmul_read_as_in_a_textbook() -> None:
    assert rules_of(F("pow")) == {"x": "g * y * x ** (y - 1)", "y": "g * out * log(x)"}
    assert rules_of(F("linear")) == {"x": "g @ w", "w": "T(g) @ x", "b": "sum(g, axis=0)"}
    assert F("linear").splitlines()[0].startswith("linear: out = x @ T(w) + b")
    assert rules_of(F("matmul")) == {"x": "g @ T(y)", "y": "T(x) @ g"}
    assert rules_of(F("mv"))["x"] == "outer(g, y)"


def test_one_transpose_notation_in_text_and_latex() -> None:
    for op in ("linear", "matmul", "mv", "matmul_nt", "matmul_tn"):
        text = F(op)
        assert ".T" not in text and "^T" not in text and "transpose" not in text, text
        latex = F(op, latex=True)
        assert r"\operatorname{T}" not in latex and r"^\top" in latex, latex
    assert r"\overline{\mathrm{out}}^\top\,x" in F("linear", latex=True)  # dL/dw = g^T x
    assert r"w^\top" in F("linear", latex=True)  # out = x w^T + b


def test_default_formulas_show_no_kernel_forms() -> None:
    """No guard, no keepdims plumbing, no speed helper in what formula() shows by default."""
    for name, prim in REGISTRY.items():
        shown = "\n".join(rules_of(F(name)).values())
        for kernel in prim.kernels:
            if kernel is not None:
                assert kernel not in shown, (name, kernel)
        for word in ("keepdims", "matmul_tn", "rows(", "where((x == 0)", "value(", "stride="):
            assert word not in shown, (name, word)


def test_detail_shows_the_kernels_and_why() -> None:
    detail = F("pow", detail=True)
    assert "runs as: g * y * pow(where((x == 0) & (y == 0), 1, x), y - 1)" in detail
    assert "0 ** 0" in detail and "fused.py" in detail
    assert "runs as: linear_w_grad(g, x)" in F("linear", detail=True)
    assert "keepdims" in F("sum", detail=True) and "keepdims" not in F("sum")
    assert "stride=stride" in F("conv2d", detail=True) and "stride" not in F("conv2d")
    assert r"\begin{cases}" in F("pow", latex=True, detail=True)  # the guard's where
    assert r"\begin{cases}" not in F("pow", latex=True)
    assert F("sin", detail=True) == F("sin")  # nothing runs instead


# ---- every kernel equals its textbook rule ---------------------------------------------------
def rng(seed: int = 0) -> np.random.Generator:
    return np.random.default_rng(seed)


def distinct(*shape: int) -> np.ndarray:
    n = int(np.prod(shape))
    return (rng(5).permutation(n) * 0.25 - n * 0.125 + 0.05).reshape(shape)


def nonzero(*shape: int) -> np.ndarray:
    r = rng(6)
    return r.uniform(0.5, 1.5, shape) * r.choice([-1.0, 1.0], shape)


def reductions(make) -> list:
    return [
        ((make(3, 4, 5),), {"axis": axis, "keepdims": keep})
        for axis in (None, (1,), (0, 2), (0,))
        for keep in (False, True)
    ]


POOL = dict(kernel_size=(2, 2), stride=(1, 2), padding=(0, 0, 0, 1), dilation=(1, 1))
X4 = rng(7).standard_normal((4, 5))
BN4 = rng(8).standard_normal((3, 3, 2, 5))  # (batch norm's (N, C, H, W))

# primitive -> [(inputs, params)], each where the textbook rule is defined
KERNEL_CASES: dict[str, list] = {
    "matmul": [
        ((rng(1).standard_normal((3, 4)), rng(2).standard_normal((4, 2))), {}),
        ((rng(1).standard_normal((2, 3, 4)), rng(2).standard_normal((4, 2))), {}),
    ],
    "matmul_nt": [((rng(1).standard_normal((3, 4)), rng(2).standard_normal((2, 4))), {})],
    "matmul_tn": [((rng(1).standard_normal((4, 3)), rng(2).standard_normal((4, 2))), {})],
    "linear": [
        ((rng(1).standard_normal((5, 3)), rng(2).standard_normal((4, 3)), rng(3).random(4)), {}),
        ((rng(1).standard_normal((2, 5, 3)), rng(2).standard_normal((4, 3)), np.ones(4)), {}),
    ],
    "tanh": [((rng(1).standard_normal((3, 4)),), {})],
    "sigmoid": [((rng(1).standard_normal((3, 4)),), {})],
    "mse": [
        ((rng(1).standard_normal((3, 4)), rng(2).standard_normal((3, 4))), {}),
        ((rng(1).standard_normal((3, 4)), rng(2).standard_normal(4)), {"reduction": "sum"}),
    ],
    "relu": [((rng(1).standard_normal((3, 4)),), {})],
    "getitem": [
        ((rng(1).standard_normal((3, 4)),), {"index": (1,)}),
        ((rng(1).standard_normal((3, 4)),), {"index": (slice(None), slice(1, 3))}),
        ((rng(1).standard_normal((3, 4)),), {"index": (np.array([0, 2, 0]),)}),
    ],
    "where": [
        ((rng(1).random((3, 4)) > 0.5, rng(2).standard_normal((3, 4)), np.zeros((3, 4))), {}),
        ((rng(1).random((1, 4)) > 0.5, rng(2).standard_normal((3, 4)), np.zeros((3, 4))), {}),
    ],
    "clip": [((rng(1).standard_normal((3, 4)),), {"min": -0.5, "max": 0.7})],
    "pow": [
        ((rng(1).uniform(0.5, 2, (3, 4)), rng(2).standard_normal((3, 4))), {}),
        ((np.array([0.0, 0.0, 2.0]), np.array([2.0, 3.5, 0.0])), {"only": "x"}),
    ],
    "sum": reductions(lambda *s: rng(1).standard_normal(s)),
    "mean": reductions(lambda *s: rng(1).standard_normal(s)),
    "max": reductions(distinct),
    "min": reductions(distinct),
    "prod": reductions(nonzero),
    "logsumexp": reductions(lambda *s: rng(1).standard_normal(s)),
    "cumprod": [((nonzero(3, 4),), {"axis": 1}), ((nonzero(3, 4),), {"axis": 0})],
    "normalize": [
        ((X4,), {"axes": (1,), "eps": 1e-5}),
        ((X4,), {"axes": (0, 1), "eps": 1e-3, "stats": moments(X4, (0, 1))}),
    ],
    "affine_normalize": [
        ((X4, rng(3).uniform(0.5, 2, 5), rng(4).standard_normal(5)), {"axes": (0,), "eps": 1e-5}),
        (
            (BN4, rng(3).uniform(0.5, 2, (1, 3, 1, 1)), rng(4).standard_normal((1, 3, 1, 1))),
            {"axes": (0, 2, 3), "eps": 1e-3, "stats": moments(BN4, (0, 2, 3))},
        ),
    ],
    "max_pool2d": [((distinct(1, 2, 4, 5),), POOL)],
    # (0 and a subnormal: Phi from erf there; -40: x Phi(x) underflows to 0)
    "gelu": [((np.array([[-40.0, -8.0, -1.5, -1e-310], [0.0, 1e-300, 0.7, 9.0]]),), {})],
    "addmm_nt": [
        ((rng(1).standard_normal((3, 4)), rng(2).standard_normal((3, 5)), X4), {}),
        ((rng(1).standard_normal(4), rng(2).standard_normal((2, 3, 5)), X4), {}),
    ],
    "lstm_cell": [
        ((rng(1).standard_normal((3, 8)), rng(2).standard_normal((7, 3, 2))), {}),
        ((rng(1).standard_normal(8), rng(2).standard_normal((2, 3, 2))), {}),
    ],
    "gru_cell": [
        (
            tuple(rng(k).standard_normal(s) for k, s in [(1, (3, 6)), (2, (3, 6)), (3, (4, 3, 2))]),
            {},
        ),
        (tuple(rng(k).standard_normal(s) for k, s in [(1, (6,)), (2, (3, 6)), (3, (1, 3, 2))]), {}),
    ],
}


def fitted(gi: np.ndarray, shape: tuple) -> np.ndarray:
    """A rule's gradient summed back to its input's shape, as the engine does."""
    gi = np.asarray(gi)
    if gi.shape == tuple(shape):
        return gi
    axes, keep = unbroadcast_axes(gi.shape, tuple(shape))
    return gi.sum(axis=axes, keepdims=keep).reshape(shape)


def test_every_kernel_has_cases() -> None:
    kernelled = {n for n, p in REGISTRY.items() if any(k is not None for k in p.kernels)}
    assert kernelled == set(KERNEL_CASES)


@pytest.mark.parametrize("name", sorted(KERNEL_CASES))
def test_every_kernel_equals_its_textbook_rule(name: str) -> None:
    prim = REGISTRY[name]
    for inputs, params in KERNEL_CASES[name]:
        params = dict(params)
        only = params.pop("only", None)
        out = prim.forward(*inputs, **params)
        g = rng(9).standard_normal(np.shape(out))
        for i, (text, kernel) in enumerate(zip(prim.texts, prim.kernels)):
            if kernel is None or only not in (None, prim.input_names[i]):
                continue
            shape = np.shape(inputs[i])
            textbook, running = prim._compile(i), prim.compile()[i]
            with np.errstate(divide="ignore", invalid="ignore"):
                want = fitted(textbook(g, out, *inputs, **params), shape)
            got = fitted(running(g, out, *inputs, **params), shape)
            np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-14, err_msg=name)
            # recorded (create_graph): the same values, and differentiable again
            ts = [
                tg.tensor(a, requires_grad=a.dtype.kind == "f") if a.dtype.kind != "b" else a
                for a in inputs
            ]
            gt, ot = tg.tensor(g, requires_grad=True), tg.tensor(out)
            with np.errstate(divide="ignore", invalid="ignore"):
                want_t = fitted(textbook(gt, ot, *ts, **params).numpy(), shape)
            got_t = running(gt, ot, *ts, **params)
            np.testing.assert_allclose(fitted(got_t.numpy(), shape), want_t, rtol=1e-12)
            assert got_t.requires_grad


def test_what_a_kernel_reads_is_what_the_tape_saves() -> None:
    """The save plan follows the rule that runs: linear's b kernel reads nothing, its w kernel
    reads x; pow's kernels read x, y and out."""
    assert REGISTRY["linear"].plan(0b100, 3).saved == ()
    assert REGISTRY["linear"].plan(0b010, 3).saved == (0,)
    plan = REGISTRY["pow"].plan(0b11, 2)
    assert plan.saved == (0, 1) and plan.out


def explode(a):  # (a kernel's helper that fails, for the traceback test below)
    return 1 / 0


def test_a_kernel_is_checked_and_a_failing_one_shows_its_own_text() -> None:
    import sys
    import traceback

    from tapegrad.primitives.registry import primitive

    prim = primitive("kernel_scratch", "2 * x", x="2 * g")(lambda x: 2 * x)
    try:
        with pytest.raises(ValueError, match=r"the kernel for x, 'g \* twce', reads 'twce'"):
            prim.override("a test", x="g * twce")
        assert prim.kernels == (None,)  # (nothing half-declared)
        line = sys._getframe().f_lineno + 1
        prim.override("a test", x="g * explode(x)")
        assert "runs as: g * explode(x)" in F("kernel_scratch", detail=True)
        with pytest.raises(ZeroDivisionError) as info:  # the kernel's own function
            prim.compile()[0](np.ones(2), None, np.ones(2))
        shown = "".join(traceback.format_exception(info.value))
        assert f"<kernel of kernel scratch for x ({__file__}:{line})>" in shown
        assert "g * explode(x)" in shown  # (its source, from linecache)
        x = tg.tensor([1.0, 2.0], requires_grad=True)
        with pytest.raises(ZeroDivisionError) as info:  # inline in the node's combined rules
            prim(x).sum().backward()
        assert "(g * explode(x))," in "".join(traceback.format_exception(info.value))
    finally:
        REGISTRY.pop("kernel_scratch")


def test_every_kernel_passes_the_name_check() -> None:
    from tapegrad.primitives.rule_text import check_names

    for name, prim in REGISTRY.items():
        for i, kernel in enumerate(prim.kernels):
            if kernel is not None:
                module = prim._overridden[i][1]
                texts = tuple(k if j == i else None for j, k in enumerate(prim.kernels))
                check_names(name, prim.input_names, prim.params, texts, None, module, "kernel")


# ---- the edges the textbook leaves undefined: as PyTorch --------------------------------------
def test_kernels_at_the_textbooks_edges_agree_with_pytorch() -> None:
    torch = pytest.importorskip("torch")

    def both(fn, *arrays):
        ts = [tg.tensor(a, dtype=tg.float64, requires_grad=True) for a in arrays]
        ps = [torch.tensor(a, dtype=torch.float64, requires_grad=True) for a in arrays]
        with np.errstate(all="ignore"):
            fn(*ts).sum().backward()
        fn(*ps).sum().backward()
        for t, p in zip(ts, ps):
            np.testing.assert_allclose(t.grad.numpy(), p.grad.numpy(), rtol=1e-12)

    # 0 ** 0, 0 ** y, log(0) in the exponent's rule
    both(lambda x, y: x**y, [0.0, 0.0, 0.0, 2.0, -1.0, 0.0], [0.0, 2.0, 0.5, 3.0, 2.0, -1.0])
    # zeros in prod and cumprod
    both(lambda x: x.prod(1), [[2.0, 0.0, 3.0], [0.0, 0.0, 1.0]])
    both(lambda x: x.cumprod(1), [[2.0, 0.0, 3.0, 4.0], [1.0, 2.0, 0.0, 0.0]])
    # a row of -inf in logsumexp (every weight 0 but one)
    both(lambda x: x.logsumexp(1), [[0.0, -np.inf, 1.0], [2.0, 2.0, -np.inf]])


# ---- every function a user calls has a formula -------------------------------------------------
TENSOR_FUNCTIONS = ("softmax", "log_softmax", "logsumexp", "mean", "var", "std", "sum", "max")


# Functions whose steps keep their own formulas: tg.explain shows each recorded step (linear,
# reshapes, matmul, softmax, dropout) with its rule; no one-step textbook rule is written yet.
STEPWISE = {"multi_head_attention_forward"}


@pytest.mark.parametrize("name", sorted(set(tg.nn.functional.__all__) - STEPWISE))
def test_every_function_of_nn_functional_has_a_formula(name: str) -> None:
    text = F(f"F.{name}")
    assert "dL/d" in text and "out = " in text, text


@pytest.mark.parametrize("name", TENSOR_FUNCTIONS)
def test_every_tensor_function_has_a_formula(name: str) -> None:
    assert "dL/dx = " in F(name)


def test_composite_formulas_read_as_in_a_textbook() -> None:
    assert rules_of(F("cross_entropy"))["x"] == "g * (softmax(x) - onehot(y)) / N"
    assert rules_of(F("softmax")) == {"x": "out * (g - sum(g * out))"}
    assert rules_of(F("log_softmax")) == {"x": "g - softmax(x) * sum(g)"}
    assert rules_of(F("mse_loss")) == {"x": "2 * g * (x - y) / N", "y": "-2 * g * (x - y) / N"}
    assert F("CrossEntropyBackward") == F("cross_entropy")
    assert "with weight=w: dL/dx = g * w_y * (softmax(x) - onehot(y)) / N" in F("cross_entropy")
    assert "LpNormalizeBackward" in F("F.normalize") and "NormalizeBackward" in F("normalize")
    assert r"\operatorname{softmax}" in F("cross_entropy", latex=True)


def test_an_unknown_name_gets_close_matches() -> None:
    with pytest.raises(KeyError, match="no primitive or function named 'softmx'.*'softmax'"):
        F("softmx")
    with pytest.raises(KeyError, match="'cross_entropy'"):
        F("crossentropy")


def test_every_composite_rule_converts_to_latex() -> None:
    from tapegrad.primitives import composites
    from tapegrad.teach.latex import to_latex

    for name in composites.COMPOSITES:
        made = composites.rule(name)
        for rule in (made, *(other for _, other in made.variants)):
            for text in (rule.expr, *(t for t in rule.texts if t is not None)):
                latex = to_latex(text)
                assert latex.count("{") == latex.count("}"), (name, text, latex)
                words = latex.replace(r"\text{if }", "").replace(r"\text{otherwise}", "")
                assert r"\text{" not in words or name in ("pad", "one_hot", "softplus"), text
        assert F(name, latex=True).startswith(r"\begin{aligned}")


# ---- in a notebook -------------------------------------------------------------------------------
def _every_formula_name() -> list[str]:
    from tapegrad.primitives import composites

    return [*REGISTRY, *composites.COMPOSITES]


def test_a_formula_is_its_text_and_a_notebook_typesets_it() -> None:
    import xml.etree.ElementTree as ET

    for name in _every_formula_name():
        shown = F(name)
        assert isinstance(shown, str) and str(shown) == F(name)  # (printing is unchanged)
        page = ET.fromstring(shown._repr_html_())  # well-formed: one element, MathML inside
        block = page.find("math")
        assert block is not None and block.get("display") == "block", name
        # the forward and one equation per rule, aligned at their = signs
        assert len(block.findall("./mtable/mtr")) == 1 + len(rules_of(shown)), name


def test_the_notebook_shows_the_notes_the_equations_do_not() -> None:
    import html
    import re

    def notes(text: str) -> str:
        return html.unescape(re.findall(r'margin: 4px 0">(.*?)</div>', text, re.S)[0])

    entropy = notes(F("cross_entropy")._repr_html_())
    assert "with weight=w: dL/dx = g * w_y * (softmax(x) - onehot(y)) / N" in entropy
    assert "dL/dy (a constant: no gradient)" in entropy and "N: the number of samples" in entropy
    assert "dL/dx = g * (softmax(x) - onehot(y)) / N\n" not in entropy  # (it is an equation)
    power = notes(F("pow", detail=True)._repr_html_())
    assert "dL/dx runs as: g * y * pow(where((x == 0) & (y == 0), 1, x), y - 1)" in power
    assert "runs as" not in F("pow")._repr_html_()
    assert "g = dL/dout" not in power  # (the legend under the equations says what out-bar is)


def test_ipython_prints_a_formula_as_text() -> None:
    class Printer:
        def __init__(self) -> None:
            self.shown = ""

        def text(self, s: str) -> None:
            self.shown += s

    printer = Printer()
    F("matmul")._repr_pretty_(printer, False)
    assert printer.shown == F("matmul") and printer.shown.startswith("matmul: out = x @ y")
