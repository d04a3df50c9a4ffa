"""One OpInfo entry on PyTorch's samples: every variant's value, gradient and second derivative.

Per sample and variant, PyTorch's call and tapegrad's run on the same values. The value must agree
(structure, shape, dtype, values); then, where PyTorch computes one, the gradient of the outputs
(after the sample's own `output_process_fn_grad`) with a random cotangent, for every input that
requires a gradient; then, for one variant per sample and only where the first order agreed, the
second derivative (the gradient of <first-order gradients, random weights>), with
`tg.autograd.grad(..., create_graph=True)` against `torch.autograd.grad`. In-place variants run
on a clone of the input, as PyTorch's own consistency test does. Where PyTorch raises, tapegrad must
refuse too.
"""

from __future__ import annotations

import warnings
import zlib
from collections.abc import Iterator
from typing import Any

import numpy as np
import torch
from torch.nn.attention import SDPBackend, sdpa_kernel

import tapegrad as tg

from .mapping import SORTS, OpEntry, Variant
from .translate import MissingName, Translator, cotangent
from .verdicts import (
    PASSED,
    Outcome,
    Refused,
    Tally,
    compare,
    compare_arrays,
    tapegrad_side,
)

DTYPES = (torch.float64, torch.int64, torch.bool)


def samples(entry: OpEntry, dtype: torch.dtype, full: bool) -> Iterator[Any]:
    """PyTorch's samples of `dtype` (`full`: the reference inputs, which add extremal values,
    NaN, infinities, broadcasting and non-contiguous inputs to the samples)."""
    info = entry.info
    wants_grad = dtype.is_floating_point and info.supports_autograd and entry.values
    if not full:
        yield from info.sample_inputs("cpu", dtype, requires_grad=wants_grad)
        return
    try:
        yield from list(info.reference_inputs("cpu", dtype, requires_grad=wants_grad))
        return
    except ValueError:  # (some make integer tensors, which cannot require a gradient)
        pass
    for sample in info.reference_inputs("cpu", dtype, requires_grad=False):
        if wants_grad:  # then the input (not weights, targets, statistics) requires one
            for t in tensors(sample.input):
                if t.is_leaf and t.dtype.is_floating_point:
                    t.requires_grad_(True)
        yield sample


def fresh_leaves(sample: Any) -> Any:
    """The sample with each tensor that requires a gradient replaced by a new leaf of the same
    values and strides (some of PyTorch's samples are views made leaves, whose gradient PyTorch's
    autograd.grad does not report)."""
    made: dict[int, torch.Tensor] = {}

    def fresh(v: Any) -> Any:
        if isinstance(v, torch.Tensor) and v.requires_grad:
            if id(v) not in made:
                made[id(v)] = v.detach().clone().requires_grad_(True)
            return made[id(v)]
        if isinstance(v, (list, tuple)) and not hasattr(v, "_fields"):
            return type(v)(fresh(x) for x in v)
        if isinstance(v, dict):
            return {k: fresh(x) for k, x in v.items()}
        return v

    return type(sample)(
        fresh(sample.input),
        args=fresh(sample.args),
        kwargs=fresh(sample.kwargs),
        output_process_fn_grad=sample.output_process_fn_grad,
        broadcasts_input=sample.broadcasts_input,
        name=sample.name,
    )


def spread(samples: Iterator[Any], cap: int | None) -> list[Any]:
    """At most `cap` of `samples` (None: all), evenly spread from the first to the last."""
    every = list(samples)
    if cap is None or len(every) <= cap:
        return every
    step = (len(every) - 1) / (cap - 1)
    return [every[round(i * step)] for i in range(cap)]


def tensors(value: Any) -> Iterator[Any]:
    if isinstance(value, (torch.Tensor, tg.Tensor)):
        yield value
    elif isinstance(value, (list, tuple)):
        for v in value:
            yield from tensors(v)
    elif isinstance(value, dict):
        for v in value.values():
            yield from tensors(v)


def describe_values(args: Any, kwargs: dict[str, Any]) -> str:
    """Arguments in one line: `Tensor[2, 3] float64, 2, dim=1`."""

    def one(v: Any) -> str:
        if isinstance(v, torch.Tensor):
            dtype = str(v.dtype).removeprefix("torch.")
            shown = f"={v.item()!r}" if v.numel() == 1 else ""
            return f"Tensor{list(v.shape)} {dtype}{shown}"
        if isinstance(v, (list, tuple)) and any(isinstance(x, torch.Tensor) for x in v):
            return "[" + ", ".join(one(x) for x in v) + "]"
        return repr(v)[:60]

    return ", ".join([one(a) for a in args] + [f"{k}={one(v)}" for k, v in kwargs.items()])


def describe(sample: Any) -> str:
    """A sample in one line: `Tensor[2, 3] float64, 2, dim=1`."""
    return describe_values((sample.input, *sample.args), sample.kwargs)


def run_variant(
    entry: OpEntry, variant: Variant, sample: Any, seed: int, second: bool
) -> Outcome | None:
    """One sample through one variant: value, gradient, and (`second`) second derivative (None:
    not a sample PyTorch can run with its gradients)."""
    if variant.tapegrad_fn is None:
        return Outcome("refused", f"missing name: {variant.missing}")
    clone = variant.inplace and isinstance(sample.input, torch.Tensor)
    t_input = sample.input.clone() if clone else sample.input
    try:
        entry.seed(torch)
        expected = variant.torch_fn(t_input, *sample.args, **sample.kwargs)
        torch_error = None
    except Exception as error:  # PyTorch refuses this sample for this variant
        if "not differentiable with respect to" in str(error):
            return None  # (an input made to require a gradient PyTorch cannot give: not a sample)
        torch_error = error
    translate = Translator()
    try:
        # (inside tapegrad_side: a dtype tapegrad refuses, bfloat16, is its clear error)
        g_input, g_args, g_kwargs = tapegrad_side(
            lambda: translate((sample.input, sample.args, sample.kwargs))
        )
        g_call = tapegrad_side(lambda: g_input.clone()) if clone else g_input
        entry.seed(tg)
        got = tapegrad_side(lambda: variant.tapegrad_fn(g_call, *g_args, **g_kwargs))
    except MissingName as missing:
        return Outcome("refused", f"missing name: {missing.name}")
    except Refused as refused:
        if torch_error is not None and refused.outcome.verdict == "refused":
            return PASSED  # both refuse
        return refused.outcome
    if torch_error is not None:
        return Outcome(
            "mismatch",
            "accepted",
            f"PyTorch raises {type(torch_error).__name__}: "
            f"{str(torch_error).splitlines()[0][:100]}",
        )
    found = compare(expected, got, values=entry.values, tolerance=entry.tolerance)
    if found.category == "value" and entry.info.name in SORTS:
        found.ties_only = _ties_only(entry, sample, expected, got)
    if found.verdict == "passed" and clone and expected is t_input and got is not g_call:
        found = Outcome("mismatch", "in-place", "returned a new tensor, not its input")
    if found.verdict != "passed" or not entry.values:
        return found
    try:
        return _gradients(entry, variant, sample, (expected, got), translate, seed, second)
    except Refused as refused:
        return refused.outcome


def _ties_only(entry: OpEntry, sample: Any, expected: Any, got: Any) -> bool:
    """Whether sort-like indices differ only in the order of equal values of the input."""
    position = SORTS[entry.info.name]
    if isinstance(expected, tuple):  # (values, indices): the values must agree
        if compare(expected[0], got[0]).verdict != "passed":
            return False
        expected, got = expected[1], got[1]
    args = sample.args
    dim = sample.kwargs.get("dim", args[position] if len(args) > position else -1)
    values = sample.input.numpy(force=True)
    mine, theirs = got.numpy(), expected.numpy(force=True)
    if values.ndim and mine.ndim < values.ndim:  # (a reduction's indices: kthvalue, mode)
        mine, theirs = np.expand_dims(mine, dim), np.expand_dims(theirs, dim)
    try:
        mine = np.take_along_axis(values, mine, axis=dim)
        theirs = np.take_along_axis(values, theirs, axis=dim)
    except (ValueError, IndexError, TypeError):  # (a 0-d input, an odd sample: not excused)
        return False
    return bool(np.array_equal(mine, theirs, equal_nan=values.dtype.kind == "f"))


def _differentiable_outputs(sample: Any, expected: Any, got: Any) -> list[tuple[Any, Any]]:
    """(torch output, tapegrad output) pairs that PyTorch differentiates."""
    process = sample.output_process_fn_grad
    t_outs = list(tensors(process(expected)))
    g_outs = list(tapegrad_side(lambda: list(tensors(process(got)))))
    if len(g_outs) != len(t_outs):
        raise Refused(Outcome("mismatch", "structure", "the outputs to differentiate differ"))
    return [(t, g) for t, g in zip(t_outs, g_outs) if t.requires_grad and t.dtype.is_floating_point]


def _gradients(
    entry: OpEntry,
    variant: Variant,
    sample: Any,
    results: tuple[Any, Any],
    translate: Translator,
    seed: int,
    second: bool,
) -> Outcome:
    pairs = translate.differentiable()
    outputs = _differentiable_outputs(sample, *results)
    if not pairs or not outputs:
        return PASSED
    for _, g in outputs:
        if not getattr(g, "requires_grad", False):
            return Outcome("mismatch", "gradient", "the output is not on the tape (no grad_fn)")
    rng = np.random.default_rng(seed)
    vs = [cotangent(t, rng) for t, _ in outputs]
    t_leaves = [t for t, _ in pairs]
    g_leaves = [g for _, g in pairs]
    try:
        t_grads = torch.autograd.grad(
            [t for t, _ in outputs], t_leaves, [torch.from_numpy(v) for v in vs], allow_unused=True
        )
    except RuntimeError:  # PyTorch cannot differentiate this sample: nothing to compare
        return PASSED
    g_grads = tapegrad_side(
        lambda: tg.autograd.grad(
            [g for _, g in outputs],
            g_leaves,
            grad_outputs=[tg.tensor(v) for v in vs],
            allow_unused=True,
        )
    )
    found = _compare_grads(t_leaves, t_grads, g_grads, "gradient", entry)
    if found.verdict != "passed" or not second or not entry.info.supports_gradgrad:
        return found
    return _second_order(entry, variant, sample, seed)


def _compare_grads(
    leaves: list[Any], t_grads: Any, g_grads: Any, what: str, entry: OpEntry
) -> Outcome:
    for i, (leaf, t_grad, g_grad) in enumerate(zip(leaves, t_grads, g_grads)):
        expected = np.zeros(tuple(leaf.shape)) if t_grad is None else t_grad.numpy(force=True)
        if g_grad is None:
            got = np.zeros(tuple(leaf.shape), dtype=expected.dtype)
        elif not isinstance(g_grad, tg.Tensor):
            return Outcome("mismatch", what, f"input {i}: a Tensor expected, got {type(g_grad)}")
        else:
            got = g_grad.numpy()
        found = compare_arrays(expected, got, tolerance=entry.tolerance, what=what)
        if found.verdict != "passed":
            found.detail = f"input {i}: {found.detail}"
            return found
    return PASSED


def _second_order(entry: OpEntry, variant: Variant, sample: Any, seed: int) -> Outcome:
    """d/dinputs <first-order gradients, w>, recomputed with create_graph=True on both sides."""
    rng = np.random.default_rng(seed + 1)
    translate = Translator()
    g_input, g_args, g_kwargs = translate((sample.input, sample.args, sample.kwargs))
    clone = variant.inplace and isinstance(sample.input, torch.Tensor)
    t_input = sample.input.clone() if clone else sample.input
    with sdpa_kernel(SDPBackend.MATH):  # (PyTorch's CPU flash attention has no second order)
        entry.seed(torch)
        expected = variant.torch_fn(t_input, *sample.args, **sample.kwargs)
    entry.seed(tg)
    got = tapegrad_side(
        lambda: variant.tapegrad_fn(g_input.clone() if clone else g_input, *g_args, **g_kwargs)
    )
    outputs = _differentiable_outputs(sample, expected, got)
    pairs = translate.differentiable()
    vs = [cotangent(t, rng) for t, _ in outputs]
    ws = [cotangent(t, rng) for t, _ in pairs]
    t_leaves = [t for t, _ in pairs]
    g_leaves = [g for _, g in pairs]
    t_first = torch.autograd.grad(
        [t for t, _ in outputs],
        t_leaves,
        [torch.from_numpy(v) for v in vs],
        allow_unused=True,
        create_graph=True,
    )
    t_terms = [
        (d * torch.from_numpy(w)).sum()
        for d, w in zip(t_first, ws)
        if d is not None and d.requires_grad
    ]
    t_second: Any = [None] * len(t_leaves)
    if t_terms:
        try:
            t_second = torch.autograd.grad(sum(t_terms), t_leaves, allow_unused=True)
        except RuntimeError:  # PyTorch cannot differentiate this sample twice: nothing to compare
            return PASSED

    def tapegrad_second() -> Any:
        first = tg.autograd.grad(
            [g for _, g in outputs],
            g_leaves,
            grad_outputs=[tg.tensor(v) for v in vs],
            allow_unused=True,
            create_graph=True,
        )
        terms = [
            (d * tg.tensor(w)).sum() for d, w in zip(first, ws) if d is not None and d.requires_grad
        ]
        if not terms:
            return [None] * len(g_leaves)
        total = terms[0]
        for term in terms[1:]:
            total = total + term
        return tg.autograd.grad(total, g_leaves, allow_unused=True)

    g_second = tapegrad_side(tapegrad_second)
    return _compare_grads(t_leaves, t_second, g_second, "second-order gradient", entry)


def run_op(entry: OpEntry, full: bool = False, cap: int | None = None) -> Tally:
    """Every sample (`cap`: at most that many per dtype) of every supported dtype through every
    variant of `entry`."""
    tally = Tally(entry.name, "op")
    supported = entry.info.supported_dtypes("cpu")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for dtype in DTYPES:
            if dtype not in supported:
                continue
            torch.manual_seed(zlib.crc32(f"{entry.name} {dtype}".encode()))  # (the same samples)
            for index, sample in enumerate(spread(samples(entry, dtype, full), cap)):
                sample = fresh_leaves(sample)
                seed = zlib.crc32(f"{entry.name} {dtype} {index}".encode())
                second = True  # (the first variant that runs checks the second order too)
                for variant in entry.variants:
                    if variant.kind.endswith("operator") and sample.kwargs:
                        continue  # (an operator takes no keywords: `a + b`, never `alpha=`)
                    if variant.kind in ("method", "in-place") and not isinstance(
                        sample.input, torch.Tensor
                    ):
                        continue  # (`2 + t` has no method spelling: 2 has no `.add`)
                    outcome = run_variant(
                        entry, variant, sample, seed, second and not variant.inplace
                    )
                    if outcome is None:
                        continue
                    if variant.tapegrad_fn is not None and not variant.inplace:
                        second = False
                    if outcome.verdict != "passed":
                        outcome.detail = (
                            f"{outcome.detail} [{dtype_name(dtype)}: {describe(sample)}]"
                        )
                    tally.add(variant.spelling, outcome)
    return tally


def dtype_name(dtype: torch.dtype) -> str:
    """torch.float64 -> 'float64'."""
    return str(dtype).removeprefix("torch.")
