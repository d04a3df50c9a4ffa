"""How tensors print, as PyTorch prints them: 4 digits by default (`tensor([0.3333, 1.0000])`),
whole numbers as `1.`, scientific notation for wide ranges, long tensors summarised with `...`,
and `tg.set_printoptions` to change it.

Layer L3: numpy only (base.py's __repr__ calls `tensor_repr` with the array and the suffixes).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable, TypedDict

import numpy as np


@dataclass
class PrintOptions:
    """The current printing options (PyTorch's names and defaults)."""

    precision: int = 4  # digits after the point
    threshold: float = 1000  # more elements than this: summarise
    edgeitems: int = 3  # elements shown at each end of a summarised axis
    linewidth: int = 80  # characters per line (for wrapping long rows)
    sci_mode: bool | None = None  # None: scientific notation when the values span a wide range


class PrintOptionsDict(TypedDict):
    """What get_printoptions returns: set_printoptions' keyword arguments."""

    precision: int
    threshold: float
    edgeitems: int
    linewidth: int
    sci_mode: bool | None


OPTIONS = PrintOptions()
PROFILES = {
    "default": PrintOptions(),
    "short": PrintOptions(precision=2, edgeitems=2),
    "full": PrintOptions(threshold=math.inf),
}


def set_printoptions(
    precision: int | None = None,
    threshold: float | None = None,
    edgeitems: int | None = None,
    linewidth: int | None = None,
    profile: str | None = None,
    sci_mode: bool | None = None,
) -> None:
    """Set how tensors print (as torch.set_printoptions): None leaves an option as it is (except
    sci_mode, which None sets back to automatic); profile is 'default', 'short' or 'full'.

    >>> tg.set_printoptions(precision=2); tg.tensor([1 / 3])
    tensor([0.33])
    """
    if profile is not None:
        if profile not in PROFILES:
            raise ValueError(
                f"set_printoptions: unknown profile {profile!r}; use one of {sorted(PROFILES)}"
            )
        base = PROFILES[profile]
        OPTIONS.precision, OPTIONS.threshold = base.precision, base.threshold
        OPTIONS.edgeitems, OPTIONS.linewidth = base.edgeitems, base.linewidth
    for name, value in (("precision", precision), ("edgeitems", edgeitems)):
        if value is not None:
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise ValueError(f"set_printoptions: {name} must be an int >= 0, got {value!r}")
            setattr(OPTIONS, name, value)
    if linewidth is not None:
        if isinstance(linewidth, bool) or not isinstance(linewidth, int) or linewidth < 1:
            raise ValueError(f"set_printoptions: linewidth must be an int >= 1, got {linewidth!r}")
        OPTIONS.linewidth = linewidth
    if threshold is not None:
        OPTIONS.threshold = threshold
    OPTIONS.sci_mode = sci_mode


def get_printoptions() -> PrintOptionsDict:
    """The current printing options, as keyword arguments for set_printoptions.

    >>> tg.get_printoptions()["precision"]
    4
    """
    return PrintOptionsDict(
        precision=OPTIONS.precision,
        threshold=OPTIONS.threshold,
        edgeitems=OPTIONS.edgeitems,
        linewidth=OPTIONS.linewidth,
        sci_mode=OPTIONS.sci_mode,
    )


def _formatter(values: np.ndarray) -> tuple[Callable[[Any], str], int]:
    """How to write one element, and the width every element is padded to (from the values shown:
    all floats in fixed point or all in scientific notation, with PyTorch's rules for which)."""
    p = OPTIONS.precision
    if values.dtype.kind != "f":
        width = max((len(str(v)) for v in values.ravel().tolist()), default=1)
        return str, width
    flat = values.astype(np.float64).ravel()
    shown = flat[np.isfinite(flat) & (flat != 0)]
    if shown.size == 0:  # only zeros, infs and nans: "0.", "inf", "nan"
        return _whole, 1
    mags = np.abs(shown)
    whole = bool(np.all(shown == np.ceil(shown)))
    sci = OPTIONS.sci_mode
    if sci is None:
        sci = mags.max() / mags.min() > 1000.0 or mags.max() > 1.0e8 or mags.min() < 1.0e-4
    if sci:
        width = max(len(f"{v:.{p}e}") for v in shown.tolist())
        return (lambda v: f"{v:{width}.{p}e}"), width
    if whole:
        return _whole, max(len(f"{v:.0f}") + 1 for v in shown.tolist())
    return (lambda v: f"{v:.{p}f}"), max(len(f"{v:.{p}f}") for v in shown.tolist())


def _whole(v: float) -> str:
    """A whole float as `3.` (nan and inf as they are)."""
    return f"{v:.0f}" + ("" if math.isinf(v) or math.isnan(v) else ".")


def _summarised(data: np.ndarray, edge: int) -> np.ndarray:
    """The elements a summarised print shows: `edge` at each end of every long axis."""
    for axis, n in enumerate(data.shape):
        if n > 2 * edge:
            keep = list(range(edge)) + list(range(n - edge, n))
            data = np.take(data, keep, axis=axis)
    return data


def _body(data: np.ndarray, indent: int, summarise: bool, fmt: Callable, width: int) -> str:
    """The nested brackets, each element padded to `width`, rows wrapped at the line width."""
    edge = OPTIONS.edgeitems

    def cell(v: Any) -> str:
        s = fmt(v)
        return " " * (width - len(s)) + s

    if data.ndim == 0:
        return cell(data.item())
    n = data.shape[0]
    cut = summarise and n > 2 * edge
    if data.ndim == 1:
        if summarise and not edge:
            cells = ["..."]
        elif cut:
            values = data.tolist()
            cells = [cell(v) for v in values[:edge]] + [" ..."] + [cell(v) for v in values[-edge:]]
        else:
            cells = [cell(v) for v in data.tolist()]
        per_line = max(1, (OPTIONS.linewidth - indent) // (width + 2))
        lines = [", ".join(cells[i : i + per_line]) for i in range(0, len(cells), per_line)]
        return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"
    rows = range(n) if not cut else list(range(edge)) + [-1] + list(range(n - edge, n))
    parts = ["..." if i == -1 else _body(data[i], indent + 1, summarise, fmt, width) for i in rows]
    return "[" + ("," + "\n" * (data.ndim - 1) + " " * (indent + 1)).join(parts) + "]"


def tensor_repr(data: np.ndarray, suffixes: list[str], prefix: str = "tensor(") -> str:
    """`tensor(...)` as PyTorch writes it: the values, then the suffixes (dtype=..., grad_fn=...),
    each moved to a line of its own when it would pass the line width."""
    indent = len(prefix)
    if data.size == 0:
        text = "[]"
        if data.ndim != 1:
            suffixes = [f"size={tuple(data.shape)}"] + suffixes
    else:
        summarise = data.size > OPTIONS.threshold
        fmt, width = _formatter(_summarised(data, OPTIONS.edgeitems) if summarise else data)
        text = _body(data, indent, summarise, fmt, width)
        if not OPTIONS.edgeitems:
            suffixes = [f"size={tuple(data.shape)}"] + suffixes
    out = prefix + text
    line = len(out) - out.rfind("\n") + 1  # (PyTorch's count: it includes the ", " to come)
    for suffix in suffixes:
        if line + len(suffix) + 2 > OPTIONS.linewidth:
            out += ",\n" + " " * indent + suffix
            line = indent + len(suffix)
        else:
            out += ", " + suffix
            line += len(suffix) + 2
    return out + ")"


def unary_doc(prim: Any, inplace: bool = False) -> str:
    """The docstring of a one-input op's method (elementwise.py's `unary_method`, inplace.py's
    `inplace_unary_method`): what it computes, where its rule is, and a tiny example whose output is
    computed here by the forward.

    >>> unary_doc(tg.primitives.elementwise.exp).splitlines()[2:4]
    ['    >>> tg.tensor([-0.5, 2.0]).exp()', '    tensor([0.6065, 7.3891])']
    """
    for values in ([-0.5, 2.0], [0.5, 2.0], [-0.5, 0.5], [1.5, 2.0]):  # (log, sqrt, asin, acosh:
        with np.errstate(invalid="ignore", divide="ignore"):  # an example inside the domain)
            out = prim.forward(np.array(values, np.float32))
        if np.isfinite(out).all():
            break
    dtype = [] if out.dtype == np.float32 else [f"dtype={out.dtype.name}"]
    shown = tensor_repr(out, dtype)
    if inplace:
        head = f"In place: self = {prim.expr}."
        call = f"x = tg.tensor({values}); x.{prim.name}_()"
    else:
        head = f"Elementwise {prim.expr} (its rule: tg.autograd.formula({prim.name!r}))."
        call = f"tg.tensor({values}).{prim.name}()"
    return f"{head}\n\n    >>> {call}\n    {shown}\n    "
