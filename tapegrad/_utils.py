"""Small helpers shared by every layer: un-broadcasting, axes, nested structures, int arguments.

Layer L0: imports numpy only. `unbroadcast_axes` plans every un-broadcast; the engine carries it
out with primitives, so recorded gradients un-broadcast on the tape too.
"""

from __future__ import annotations

import operator
from functools import lru_cache
from typing import Any, Callable, Sequence

import numpy as np


@lru_cache(maxsize=512)  # (asked once per broadcast input per backward: the same few shapes)
def unbroadcast_axes(gshape: tuple, shape: tuple) -> tuple[tuple, bool] | None:
    """How to sum a gradient of shape `gshape` back to `shape`: (the axes to sum, whether they must
    be kept as size 1, then reshaped); None when it does not sum back (not a broadcast of `shape`).
    The single place that knows how un-broadcasting works.

    >>> unbroadcast_axes((4, 3), (3,))
    ((0,), False)
    """
    lead = len(gshape) - len(shape)
    if lead < 0 or any(n != m and n != 1 for n, m in zip(shape, gshape[lead:])):
        return None
    kept = tuple(i + lead for i, n in enumerate(shape) if n == 1 and gshape[i + lead] != 1)
    return tuple(range(lead)) + kept, bool(kept)


def normalize_axis(axis: Any, ndim: int) -> tuple | None:
    """An axis argument (None, int, sequence) as a sorted tuple of non-negative ints, or None."""
    if axis is None:
        return None
    if isinstance(axis, (int, np.integer)):
        axis = (int(axis),)
    elif not isinstance(axis, (tuple, list)):
        raise TypeError(f"axis must be an int or a tuple of ints, got {axis!r}")
    out = []
    for a in axis:
        if not isinstance(a, (int, np.integer)):
            raise TypeError(f"axis must be an int or a tuple of ints, got {a!r}")
        if not -max(ndim, 1) <= a < max(ndim, 1):
            raise IndexError(
                f"axis {a} is out of range for a tensor with {ndim} dimension(s); "
                f"valid axes are {-max(ndim, 1)}..{max(ndim, 1) - 1}"
            )
        out.append(int(a) % max(ndim, 1))
    if len(set(out)) != len(out):
        raise ValueError(f"axis {tuple(axis)} repeats an axis")
    return tuple(sorted(out))


def one_axis(axis: Any, ndim: int) -> int:
    """One axis (an int; negative counts from the end), non-negative: one_axis(-1, 3) == 2."""
    return normalize_axis(axis, ndim)[0]  # type: ignore[index]  # (an int in: a 1-tuple out)


def shape_args(args: Sequence[Any]) -> tuple:
    """`f(2, 3)` and `f((2, 3))` both mean the shape (2, 3)."""
    if len(args) == 1 and isinstance(args[0], (tuple, list)):
        args = args[0]
    if len(args) == 1 and hasattr(args[0], "tolist") and not isinstance(args[0], (int, np.integer)):
        args = args[0].tolist()
        args = tuple(args) if isinstance(args, list) else (args,)
    for a in args:
        if not isinstance(a, (int, np.integer)) or isinstance(a, bool):
            raise TypeError(f"a shape is made of ints, got {a!r} in {tuple(args)!r}")
    return tuple(int(a) for a in args)


def tree_map(
    fn: Callable[[Any], Any], tree: Any, is_leaf: Callable[[Any], bool] | None = None
) -> Any:
    """Apply fn to every leaf of nested tuples/lists/dicts, keeping the structure."""
    if is_leaf is not None and is_leaf(tree):
        return fn(tree)
    if isinstance(tree, tuple) and not hasattr(tree, "_fields"):
        return tuple(tree_map(fn, t, is_leaf) for t in tree)
    if isinstance(tree, list):
        return [tree_map(fn, t, is_leaf) for t in tree]
    if isinstance(tree, dict):
        return {k: tree_map(fn, v, is_leaf) for k, v in tree.items()}
    return fn(tree)


def tree_leaves(tree: Any) -> list:
    """The leaves of nested tuples/lists/dicts, in order."""
    out: list = []

    def visit(t: Any) -> Any:
        out.append(t)
        return t

    tree_map(visit, tree)
    return out


def int_arg(name: str, value: Any, low: int = 0) -> int:
    """An int argument (Python or NumPy integer, not bool or float) >= low, else a clear error."""
    try:
        if isinstance(value, bool):
            raise TypeError
        number = operator.index(value)
    except TypeError:
        raise TypeError(f"{name} must be an int, got {value!r} ({type(value).__name__})") from None
    if number < low:
        raise ValueError(f"{name} must be an int >= {low}, got {number}")
    return number


class ShapeError(ValueError, RuntimeError):
    """A tensor of a shape an op cannot take (operands that do not broadcast, a reshape to another
    size, matrices that do not multiply). A ValueError, tapegrad's kind for shape and length
    errors, and a RuntimeError, PyTorch's: code written for either catches it.

    >>> issubclass(ShapeError, RuntimeError) and issubclass(ShapeError, ValueError)
    True
    """

    __module__ = "tapegrad"  # (tracebacks say tapegrad.ShapeError, the name users import)
