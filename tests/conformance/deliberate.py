"""The differences from PyTorch kept on purpose (API.md, "Deliberate differences"), and the ones
known and not fixed yet (OPEN), each with its reason.

A mismatch is excused when a DELIBERATE entry matches it. An OPEN entry does not excuse anything
silently: the test prints every mismatch it covers, and fails when an OPEN entry no longer
matches any mismatch (then it was fixed: delete the entry), so this list only ever shrinks.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable

from .verdicts import Outcome


@dataclass(frozen=True)
class Difference:
    """Which outcomes a difference covers: entries (OpInfo names, `nn.X`, `optim.X`; empty: any),
    the verdict ("mismatch", or "unclear" for an unclear error), text its category and detail
    contain, the spellings (`Tensor.clamp_`; empty: any), and a condition on the outcome."""

    reason: str
    entries: tuple[str, ...] = ()
    verdict: str = "mismatch"
    category: str = ""
    detail: str = ""
    variants: tuple[str, ...] = ()
    when: Callable[[Outcome], bool] = lambda outcome: True
    full_only: bool = False  # (OPEN) seen only on the reference inputs of the full run

    def covers(self, entry: str, variant: str, outcome: Outcome) -> bool:
        """Whether this difference explains `outcome` (of `entry` through `variant`)."""
        named = not self.entries or any(
            entry == e or entry.startswith(e + ".") for e in self.entries
        )
        return (
            named
            and outcome.verdict == self.verdict
            and self.category in outcome.category
            and self.detail in outcome.detail
            and (not self.variants or variant in self.variants)
            and self.when(outcome)
        )


def _negated(detail: str) -> bool:
    """Whether a mismatch's first differing value is the negative of the expected one."""
    found = re.findall(r"np\.float64\(([-+0-9.e]+)\)", detail)
    if len(found) < 2:
        return False
    expected, got = float(found[0]), float(found[1])
    return abs(expected + got) <= 1e-9 * max(abs(expected), 1e-300)


def _within(detail: str, bound: float) -> bool:
    """Whether a mismatch's first differing value is within `bound` of the expected one."""
    found = re.findall(r"np\.float(?:32|64)\(([-+0-9.einaf]+)\)", detail)
    if len(found) < 2:
        return False
    expected, got = float(found[0]), float(found[1])
    return abs(expected - got) <= bound


DELIBERATE: tuple[Difference, ...] = (
    Difference(
        "sorting is stable: among equal values tapegrad keeps the input's order, where PyTorch's "
        "order of ties is unspecified (its indices differ only among equal values)",
        entries=("sort", "argsort", "topk", "kthvalue", "mode"),
        category="value",
        when=lambda outcome: outcome.ties_only,
    ),
    Difference(
        "cov with float32 aweights on a float64 input: the second derivatives agree with "
        "PyTorch's to float32's precision only (both round the weights' terms to float32, at "
        "different steps of the double backward)",
        entries=("cov",),
        category="second-order gradient value",
        detail="aweights=Tensor",
        when=lambda outcome: "float32]" in outcome.detail,
    ),
    Difference(
        "linear_cross_entropy with options: PyTorch's chunked path computes the gradients in its "
        "forward and hands them back, so its second derivatives are 0; tapegrad has one path, the "
        "reference one, whose second derivatives are the true ones (equal to PyTorch's reference "
        "path, the entry without options)",
        entries=(
            "nn.functional.linear_cross_entropy.chunked",
            "nn.functional.linear_cross_entropy.chunked_none",
        ),
        category="second-order gradient value",
        when=lambda outcome: "np.float64(0.0) expected" in outcome.detail,
    ),
    Difference(
        "pow's second derivatives at base 0 are finite where PyTorch's are NaN (NaN from the "
        "branch its rule throws away; tapegrad's guards keep it out)",
        entries=("pow", "__rpow__", "float_power"),
        category="second-order gradient NaN",
        when=lambda outcome: outcome.torch_nan,
    ),
    Difference(
        "F.elu's (selu's, celu's, hardswish's) gradient at a NaN input is NaN, as PyTorch's "
        "vectorised kernel gives it; PyTorch's scalar loop over the last elements of a tensor "
        "(past a multiple of its vector width) passes the gradient there instead, so one tensor "
        "gets both",
        entries=(
            "nn.functional.elu",
            "nn.functional.selu",
            "nn.functional.celu",
            "nn.functional.hardswish",
        ),
        category="gradient NaN",
        detail="got np.float64(nan)",
    ),
    Difference(
        "F.hardtanh's (relu6's, hardshrink's, softshrink's) gradient at a NaN input is 0, as "
        "PyTorch's vectorised kernel gives it; PyTorch's scalar loop over the last elements of a "
        "tensor (past a multiple of its vector width) passes the gradient there instead, so one "
        "tensor gets both",
        entries=(
            "nn.functional.hardtanh",
            "nn.functional.relu6",
            "nn.functional.hardshrink",
            "nn.functional.softshrink",
        ),
        category="gradient value",
        detail="got np.float64(0.0)",
    ),
    Difference(
        "F.mish's second derivative at large |x| is finite (0 to float64's precision, its limit) "
        "where PyTorch's is NaN (exp overflows in its double backward)",
        entries=("nn.functional.mish",),
        category="second-order gradient NaN",
        when=lambda outcome: outcome.torch_nan,
    ),
    Difference(
        "a norm's second derivatives at x = 0 are 0 where PyTorch's are NaN (the where guarding "
        "its first derivative at 0, tapegrad's Tensor.norm, keeps NaN out of the second too)",
        entries=("linalg.norm",),
        category="second-order gradient NaN",
        when=lambda outcome: outcome.torch_nan,
    ),
    Difference(
        "eigh's eigenvectors and svd's singular vectors are each defined up to sign (PyTorch's "
        "documentation says so): NumPy's LAPACK and PyTorch's may flip a column (U with Vh's "
        "row), the first differing value is then the negative of PyTorch's (gradients of "
        "sign-independent functions agree)",
        entries=("linalg.eigh", "linalg.svd", "svd", "svd_lowrank", "pca_lowrank"),
        category="value",
        detail="result [",
        when=lambda outcome: _negated(outcome.detail),
    ),
    Difference(
        "amax/amin gradients are exact where PyTorch gives NaN",
        entries=("amax", "amin"),
        category="gradient",
        when=lambda outcome: outcome.torch_nan,
    ),
    Difference(
        "random numbers are tapegrad's own (the same seed gives the same numbers in every run, "
        "not PyTorch's): attention with dropout_p > 0 drops other weights",
        entries=("nn.functional.scaled_dot_product_attention",),
        when=lambda outcome: (
            "dropout_p=" in outcome.detail
            and "dropout_p=0.0]" not in outcome.detail
            and "dropout_p=0.0," not in outcome.detail
        ),
    ),
    Difference(
        "ldexp's second derivatives where 2**other overflows: both libraries' terms are "
        "infinite there, and whether their sum is an infinity or NaN (inf - inf) depends on the "
        "order the double backward adds them in",
        entries=("ldexp",),
        category="second-order gradient NaN",
        detail="inf) (",
        when=lambda outcome: outcome.torch_nan,
    ),
    Difference(
        "as_strided on a partial view: PyTorch's sample is a view into a larger storage and its "
        "storage_offset counts from that storage's start; the tapegrad tensor made from it owns "
        "only its own elements, so the same offset starts at its first element",
        entries=("as_strided.partial_views",),
        category="value",
    ),
    Difference(
        "as_strided_scatter's gradient for self: 0 where src replaced it, 1 elsewhere (the "
        "closed form); PyTorch 2.13's gives other values there and fails its own gradcheck",
        entries=("as_strided_scatter",),
        category="gradient value",
        detail="input 0",
    ),
    Difference(
        "ctc_loss's gradient in log_probs is the derivative of the loss as computed (gradcheck "
        "holds); PyTorch's kernel adds g * exp(log_probs), which log_softmax's backward cancels "
        "(the gradient in the logits is the same) but which fails its own gradcheck in log_probs",
        entries=("nn.functional.ctc_loss", "nn.CTCLoss"),
        category="gradient value",
        detail="input 0",
    ),
    Difference(
        "kaiser windows are computed in float64 as a ratio of exp-scaled I0 (finite for any "
        "beta); PyTorch's float32 kaiser overflows I0(beta) past beta ~ 90 and gives NaN there",
        entries=("signal.windows.kaiser",),
        when=lambda outcome: outcome.torch_nan,
    ),
    Difference(
        "bessel_j0/j1/y0/y1 and airy_ai: tapegrad's values are the true ones to a few ulp of the "
        "function's envelope (tests/test_special_bessel.py checks them against mpmath at 120 "
        "bits, and checks that at every conformance sample tapegrad is no farther from the truth "
        "than PyTorch); PyTorch 2.13's CPU kernels err by up to ~2e-6 (J and Y just past x = 5, "
        "Ai just below x = -2.09) and lose the phase at large |x| (in float32 from x ~ -1e3: "
        "2e-3 off at x = -10701)",
        entries=(
            "special.bessel_j0",
            "special.bessel_j1",
            "special.bessel_y0",
            "special.bessel_y1",
            "special.airy_ai",
        ),  # fmt: skip
        when=lambda outcome: _within(
            outcome.detail, 2e-5 if "float64(" in outcome.detail else 1e-2
        ),
    ),
)

# Known and not fixed yet (issue 26 and what the run found): each shrinks to nothing when fixed.
OPEN: tuple[Difference, ...] = (
    Difference(
        "sinc's second derivative close to 0: both frameworks differentiate the same first-order "
        "formula, whose two terms cancel there, recorded in another order; a few elements in a "
        "million (|x| near 1e-5) keep only a few correct digits, differently in each",
        entries=("sinc",),
        category="second-order gradient value",
        full_only=True,
    ),
    Difference(
        "pow's second derivatives at the edges (base 0, negative or infinite bases with exponent "
        "0) differ from PyTorch's both ways: its rule leaks NaN from the branch it throws away, "
        "tapegrad's guards keep the y-derivative of the x-gradient at y == 0 (mixed cases are not "
        "the deliberate difference above)",
        entries=("pow", "__rpow__"),
        category="second-order gradient",
        full_only=True,
    ),
    Difference(
        "the gradient through .half() is one float16 step off PyTorch's on about 1 in 10^4 "
        "elements (how the float64 cotangent is rounded to float16)",
        entries=("half",),
        category="gradient value",
        full_only=True,
    ),
    Difference(
        "where with a Python complex gives complex128; PyTorch gives the default complex dtype, "
        "complex64 (type promotion of Python scalars)",
        entries=("where",),
        category="dtype",
        detail="complex64 expected, got complex128",
        full_only=True,
    ),
    Difference(
        "LBFGS on the harness's tanh loss with StepLR + ReduceLROnPlateau seeds: the same "
        "evaluations and history as PyTorch, but last-bit differences (BLAS dot order, tanh) "
        "grow through 20 quasi-Newton iterations a step to ~2e-7, and once a stopping test flips",
        entries=("optim.LBFGS",),
        category="trajectory value",
    ),
)


def excuse(entry: str, variant: str, outcome: Outcome) -> str | None:
    """The reason a mismatch is deliberate, or None."""
    for difference in DELIBERATE:
        if difference.covers(entry, variant, outcome):
            return difference.reason
    return None


def known(entry: str, variant: str, outcome: Outcome) -> Difference | None:
    """The OPEN entry a mismatch is known under, or None."""
    for difference in OPEN:
        if difference.covers(entry, variant, outcome):
            return difference
    return None
