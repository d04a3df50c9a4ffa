"""Same programs, tapegrad against PyTorch (when it is importable; it is never a dependency).

Values, first-order gradients and second-order gradients (create_graph) of a set of float64
programs, plus in-place ops through views. Exit status 1 on any mismatch.
Run: `python benchmarks/parity_with_torch.py` (with torch installed beside tapegrad).
"""

from __future__ import annotations

import sys

import numpy as np

import tapegrad as tg

try:
    import torch
except ImportError:  # pragma: no cover - optional
    print(
        "PyTorch is not importable here; install it beside tapegrad to compare (pip install torch)"
    )
    sys.exit(0)

RNG = np.random.default_rng(0)
A, B, C = RNG.standard_normal((3, 4)), RNG.standard_normal((4, 2)), RNG.standard_normal((3, 4))
P = RNG.uniform(0.5, 2.0, (3, 4))


def lib_tensor(m, x, grad=True):
    return (torch.tensor if m is torch else tg.tensor)(
        np.array(x, dtype=np.float64), requires_grad=grad
    )


def _sincos(m, a, c):
    """A custom Function with two outputs (and a backward gradient at a broadcast shape)."""

    class SinCos(torch.autograd.Function if m is torch else tg.autograd.Function):
        @staticmethod
        def forward(ctx, x, w):
            ctx.save_for_backward(x, w)
            return (x * w).sin(), (x * w).cos() * 2.0

        @staticmethod
        def backward(ctx, gs, gc):
            x, w = ctx.saved_tensors
            d = gs * (x * w).cos() - gc * 2.0 * (x * w).sin()
            return d * w, d * x  # (w's at x's shape: summed back by the engine)

    s, k = SinCos.apply(a, c[0])
    return (s * k).sum() + (k * a).sum()


PROGRAMS = {
    "Function, two outputs": lambda m, a, c, p: _sincos(m, a, c),
    "sum of products": lambda m, a, c, p: (a * c).sum(),
    "matmul tanh": lambda m, a, c, p: (a @ lib_tensor(m, B, False)).tanh().sum(),
    "softmax": lambda m, a, c, p: (a.softmax(dim=1) * c).sum(),
    "log_softmax": lambda m, a, c, p: (a.log_softmax(dim=-1) * c).sum(),
    "logsumexp": lambda m, a, c, p: a.logsumexp(dim=0).sum(),
    "pow": lambda m, a, c, p: (p**a).sum() + (p**2.5).sum(),
    "div": lambda m, a, c, p: (a / p).sum() + (2.0 / p).sum(),
    "sigmoid relu": lambda m, a, c, p: (a.sigmoid() * c.relu()).sum(),
    "sqrt log exp": lambda m, a, c, p: (p.sqrt() + p.log() + a.exp()).sum(),
    "abs clamp": lambda m, a, c, p: (a.abs() + a.clamp(-0.5, 0.5)).sum(),
    "maximum": lambda m, a, c, p: m.maximum(a, c).sum(),
    "where": lambda m, a, c, p: m.where(a > 0, a * 2, c).sum(),
    "indexing": lambda m, a, c, p: (a[1:, ::2] * 3).sum() + a[[0, 0, 2]].sum() + a[a > 0].sum(),
    "cat stack": lambda m, a, c, p: (
        (m.cat([a, c], dim=0) ** 2).sum() + (m.stack([a, c], dim=1) * 2).sum()
    ),
    "var": lambda m, a, c, p: (a.var(dim=1, unbiased=False) if m is torch else a.var(dim=1)).sum(),
    "prod": lambda m, a, c, p: p.prod(dim=1).sum(),
    "broadcast": lambda m, a, c, p: (a * c[0] + c[:, :1]).sum(),
    "amax": lambda m, a, c, p: (a.amax(dim=1) if m is torch else a.max(dim=1)).sum(),
}

VIEW_PROGRAMS = {
    "row +=": lambda b, c: b[0].__iadd__(2.0),
    "row *= c": lambda b, c: b[1].__imul__(c),
    "column[...] = c": lambda b, c: b[:, 0].__setitem__(Ellipsis, c),
    "transposed view +=": lambda b, c: b.T.__iadd__(c),
    "view of a view *=": lambda b, c: b[1:][0].__imul__(c),
}


def grads(m, out, leaves, create_graph=False):
    fn = torch.autograd.grad if m is torch else tg.autograd.grad
    gs = fn(out, leaves, create_graph=create_graph, allow_unused=True)
    return [
        (torch.zeros_like if m is torch else tg.zeros_like)(x) if g is None else g
        for g, x in zip(gs, leaves)
    ]


def as_numpy(t):
    return t.detach().numpy(force=True) if isinstance(t, torch.Tensor) else t.numpy()


def compare(name, results):
    ok = all(np.allclose(x, y, rtol=1e-8, atol=1e-10) for x, y in zip(*results))
    print(("ok      " if ok else "MISMATCH"), name)
    return ok


def main() -> int:
    failures = 0
    for name, prog in PROGRAMS.items():
        results = []
        for m in (torch, tg):
            a, c, p = (lib_tensor(m, x) for x in (A, C, P))
            out = prog(m, a, c, p)
            first = grads(m, out, [a, c, p], create_graph=True)
            s = (first[0] * first[0]).sum() + (first[0] * first[2]).sum()  # a scalar of the grads
            second = grads(m, s, [a, c, p]) if s.requires_grad else []
            results.append([as_numpy(out)] + [as_numpy(g) for g in first + second])
        failures += not compare(name, results)
    for name, prog in VIEW_PROGRAMS.items():
        results = []
        for m in (torch, tg):
            a, c = lib_tensor(m, A), lib_tensor(m, np.array(2.0))
            b = a * 1.0
            prog(b, c)
            out = (b * lib_tensor(m, P, False)).sum()
            results.append([as_numpy(b)] + [as_numpy(g) for g in grads(m, out, [a, c])])
        failures += not compare("in place through a view: " + name, results)
    print(f"{failures} mismatch(es) in {len(PROGRAMS) + len(VIEW_PROGRAMS)} programs")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
