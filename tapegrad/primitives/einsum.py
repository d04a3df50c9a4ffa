"""einsum: the primitive (NumPy's einsum on an equation with every subscript spelled out) and the
parsing that spells out the user's equation (`...`, implicit output) and checks it against shapes.

Conventions as in elementwise.py. The gradient for operand i is itself an einsum: of g with the
other operands, into operand i's subscripts; subscripts only operand i has (summed in the forward)
are broadcast back, and repeated ones (a diagonal, `ii->i`) put the gradient on that diagonal.
Layer L1: numpy, registry and the shape and reduction families. Under vmap a letter the equation
does not use stands for the batch.
"""

from __future__ import annotations

import string
from typing import Sequence

import numpy as np

from .._utils import ShapeError
from .registry import primitive
from .shape import expand, reshape, scatter_add

LETTERS = string.ascii_uppercase + string.ascii_lowercase  # (implicit output sorts in this order)


def batch_einsum(level, prim, inputs, batched, params):
    """A subscript the equation does not use stands for the batch, in every batched operand and in
    the output."""
    equation = params["equation"]
    b = next(c for c in LETTERS if c not in equation)
    terms, output = equation.split("->")
    terms = [b + t if is_batched else t for t, is_batched in zip(terms.split(","), batched)]
    return einsum(*inputs, equation=",".join(terms) + "->" + b + output)


@primitive(
    "einsum", "einsum(equation, *xs)", batch=batch_einsum, xs="einsum_grads(g, xs, equation)"
)
def einsum(*xs, equation):
    return np.einsum(equation, *xs, optimize=len(xs) > 2)


def einsum_grads(g, xs, equation):
    """One gradient per operand: g contracted with the other operands into its subscripts."""
    inputs, output = equation.split("->")
    terms = inputs.split(",")
    size = letter_sizes(terms, [x.shape for x in xs])
    grads = []
    for i, term in enumerate(terms):
        own = dict(zip(term, xs[i].shape))
        unique = "".join(dict.fromkeys(term))
        others = terms[:i] + terms[i + 1 :]
        elsewhere = set(output).union(*others)
        # a subscript the operand has at size 1 against a larger one elsewhere is summed (as the
        # engine sums a broadcast gradient back); one it alone has is broadcast back below, as is
        # one the result has at size 1 because only a broadcast (size-1) operand has it
        kept = "".join(c for c in unique if c in elsewhere and own[c] == size[c])
        grad = einsum(g, *xs[:i], *xs[i + 1 :], equation=",".join([output, *others]) + "->" + kept)
        if kept != unique:  # the subscripts left out come back as axes of size 1
            grad = reshape(
                grad, shape=tuple(grad.shape[kept.index(c)] if c in kept else 1 for c in unique)
            )
        if grad.shape != tuple(own[c] for c in unique):
            grad = expand(grad, shape=tuple(own[c] for c in unique))
        if len(unique) < len(term):
            grad = scatter_add(grad, shape=xs[i].shape, index=diagonal(term, unique, own))
        grads.append(grad)
    return tuple(grads)


def diagonal(term, unique, own):
    """The index picking, from an operand with subscripts `term` (some repeated), the elements
    whose repeated subscripts agree: an array of the `unique` subscripts' sizes."""
    n = len(unique)
    return tuple(
        np.arange(own[c]).reshape(tuple(-1 if k == unique.index(c) else 1 for k in range(n)))
        for c in term
    )


def letter_sizes(terms: Sequence[str], shapes: Sequence[tuple]) -> dict:
    """Each subscript's size: the largest over the operands (the others are 1, or equal)."""
    size: dict = {}
    for term, shape in zip(terms, shapes):
        for c, n in zip(term, shape):
            size[c] = n if size.get(c, 1) == 1 else size[c]
    return size


# ---- parsing -------------------------------------------------------------------------------
def spell_out(equation: str, shapes: Sequence[tuple]) -> str:
    """The equation with `...` replaced by letters and the output given, checked against the
    operands' shapes (a ValueError saying what is wrong otherwise).

    >>> spell_out("...j,j", [(2, 3), (3,)])
    'Aj,j->A'
    """
    if not isinstance(equation, str):
        raise TypeError(f"einsum: the equation must be a str such as 'ij,jk->ik', got {equation!r}")
    eq = equation.replace(" ", "")
    if eq.count("->") > 1:
        raise ValueError(f"einsum: {equation!r} has more than one '->'; write 'inputs->output'")
    lhs, arrow, rhs = eq.partition("->")
    terms = [_tokens(t, equation) for t in lhs.split(",")]
    if len(terms) != len(shapes):
        raise ValueError(
            f"einsum: {equation!r} has {len(terms)} operand term(s) (separated by commas) but "
            f"{len(shapes)} operand(s) were given; pass one tensor per term"
        )
    out = _tokens(rhs, equation) if arrow else None
    used = {c for t in terms + [out or []] for c in t if c != "..."}
    spare = [c for c in LETTERS if c not in used]
    ellipsis_ndim = 0
    for k, (term, shape) in enumerate(zip(terms, shapes)):
        named = len([c for c in term if c != "..."])
        if ("..." in term and named > len(shape)) or ("..." not in term and named != len(shape)):
            raise ValueError(
                f"einsum: operand {k} has {len(shape)} dimension(s) (shape {list(shape)}) but its "
                f"term {''.join(term)!r} names {named}"
                + ("" if "..." in term else "; use '...' for dimensions you do not name")
            )
        ellipsis_ndim = max(ellipsis_ndim, len(shape) - named if "..." in term else 0)
    if ellipsis_ndim > len(spare):
        raise ValueError(f"einsum: {equation!r} needs more than the 52 letters available")
    dots = "".join(spare[:ellipsis_ndim])
    spelled = []
    for term, shape in zip(terms, shapes):
        extra = len(shape) - len([c for c in term if c != "..."])
        spelled.append("".join(dots[len(dots) - extra :] if c == "..." else c for c in term))
    _check_sizes(spelled, shapes, equation)
    if out is None:  # implicit output: the ellipsis, then the letters used once, sorted
        counts = {c: "".join(spelled).count(c) for c in "".join(spelled)}
        output = dots + "".join(c for c in LETTERS if counts.get(c) == 1 and c not in dots)
    else:
        for c in out:
            if c != "..." and c not in "".join(spelled):
                raise ValueError(
                    f"einsum: output subscript {c!r} in {equation!r} appears in no input term"
                )
            if c != "..." and out.count(c) > 1:
                raise ValueError(
                    f"einsum: output subscript {c!r} appears more than once in {equation!r}"
                )
        output = "".join(dots if c == "..." else c for c in out)
    return ",".join(spelled) + "->" + output


def _tokens(term: str, equation: str) -> list:
    """A term as a list of letters and '...' (at most one)."""
    tokens, i = [], 0
    while i < len(term):
        if term.startswith("...", i):
            if "..." in tokens:
                raise ValueError(f"einsum: a term of {equation!r} has more than one '...'")
            tokens.append("...")
            i += 3
            continue
        c = term[i]
        if c not in LETTERS:
            what = "a '.' that is not part of '...'" if c == "." else f"the character {c!r}"
            raise ValueError(
                f"einsum: {equation!r} contains {what}; subscripts are the letters a-z and A-Z "
                f"(and '...' for the dimensions not named)"
            )
        tokens.append(c)
        i += 1
    return tokens


def _check_sizes(terms: list, shapes: Sequence[tuple], equation: str) -> None:
    """A subscript repeated in one operand has one size there; across operands sizes are equal or
    1 (broadcast)."""
    seen: dict = {}
    for k, (term, shape) in enumerate(zip(terms, shapes)):
        own: dict = {}
        for c, n in zip(term, shape):
            if own.setdefault(c, n) != n:
                raise ValueError(
                    f"einsum: subscript {c!r} is repeated in operand {k} of {equation!r} with "
                    f"sizes {own[c]} and {n}; a repeated subscript (a diagonal) needs equal sizes"
                )
            first = seen.setdefault(c, (n, k))
            if n != first[0] and 1 not in (n, first[0]):
                raise ShapeError(
                    f"einsum: subscript {c!r} has size {first[0]} in operand {first[1]} but {n} in "
                    f"operand {k} of {equation!r}; sizes must match (or be 1, to broadcast)"
                )
            if first[0] == 1:
                seen[c] = (n, k)
