"""Recording: run a primitive on the arrays behind its arguments and, in grad mode, put one Node on
the tape. `record` is the only place a Node is made (built-in ops and custom Functions alike).

Layer L3: numpy, the L0 state, the rule table, the tape's Node and anomaly stacks, and the Tensor
class. What a Node keeps is what its rules read (the primitive's SavePlan for the inputs that need
a gradient), so `x * 3` saves nothing of x.
"""

from __future__ import annotations

import weakref
from typing import Any, Sequence

import numpy as np

from .. import dtypes
from .._state import overrides, state
from ..primitives.elementwise import cast
from ..primitives.registry import Primitive
from ..tape.anomaly import capture_stack
from ..tape.node import Node
from .tensor import Tensor

_new = object.__new__
_ndarray = np.ndarray
_F64 = np.dtype(np.float64)
_NO_PARAMS: dict = {}  # shared by every node without parameters (never mutated)


def apply(prim: Primitive, *args: Any, **params: Any) -> Tensor:
    """Run `prim` on the arrays behind `args`; record it when grad mode is on and an input requires
    grad. `apply(P.elementwise.mul, x, 2.0)` is `x * 2.0`."""
    try:  # (free in CPython >= 3.11 when nothing is raised)
        needs = 0  # bitmask: the inputs that require grad, found while unwrapping the arrays
        if len(args) == 1:  # the common arities without building a list
            a = args[0]
            if isinstance(a, Tensor):
                needs = a._requires_grad
                a = a._data
            out = prim.forward(a, **params) if params else prim.forward(a)
        elif len(args) == 2:
            a, b = args
            if isinstance(a, Tensor):
                needs = a._requires_grad
                a = a._data
            if isinstance(b, Tensor):
                needs |= b._requires_grad << 1
                b = b._data
            out = prim.forward(a, b, **params) if params else prim.forward(a, b)
        else:
            arrays = []
            for i, a in enumerate(args):
                if isinstance(a, Tensor):
                    needs |= a._requires_grad << i
                    a = a._data
                arrays.append(a)
            out = prim.forward(*arrays, **params)
    except ValueError as e:  # e.g. shapes that do not broadcast: say which op
        raise ValueError(str(e) if str(e).startswith(prim.name) else f"{prim.name}: {e}") from None
    if out.__class__ is not _ndarray:
        out = np.asarray(out)
    if out.dtype is _F64 and prim is not cast and not any_float64(args):
        out = out.astype(dtypes.float32)  # ints and Python floats make float32, as in PyTorch
    if needs and (not overrides[0] or state._enabled):  # (the first test spares a thread-local
        return record(prim, out, args, params, needs)  # lookup; `_enabled` spares a property)
    t = _new(Tensor)
    t._data = out
    t._grad_fn = None
    t._requires_grad = False
    t._vc = None
    if prim.view and isinstance(args[0], Tensor) and np.may_share_memory(out, args[0]._data):
        mark_view(t, args[0], prim, params)
    return t


def record(
    prim: Primitive, out: np.ndarray, args: Sequence[Any], params: dict, needs: int
) -> Tensor:
    """Make the Node for one op (the only place Nodes are made) and return its output tensor."""
    plan = prim.plans.get(needs) or prim.plan(needs, len(args))
    node = _new(Node)  # (fields set here without an __init__ call: this runs once per op)
    node.prim = prim
    node.edges = edges_of(args, needs)
    node.params = params or _NO_PARAMS
    node.constants = None
    if needs != _ALL_NEED[len(args)] and len(args) == 2:  # (x * 2.0: keep the number, which
        node.constants = numbers_of(args)  # costs nothing, so drawings can show every value)
    node.saved = node.versions = None
    if plan.saved:
        node.saved, node.versions = saved_with_versions(args, plan.saved)
    node.shapes = node.dtypes = None  # None: every input that matters looks like the output
    if not prim.elementwise:
        oshape, odtype = out.shape, out.dtype
        for i in plan.shaped:
            a = args[i]
            d = a._data if isinstance(a, Tensor) else a
            if d.__class__ is not _ndarray or d.shape != oshape or d.dtype != odtype:
                node.shapes = tuple(
                    [a.shape if isinstance(a, Tensor) else np.shape(a) for a in args]
                )
                node.dtypes = tuple([getattr(a, "dtype", None) for a in args])
                break
    node.pre_hooks = node.stack = None
    node.scope = (state.scope or None) if overrides[0] else None
    t = _new(Tensor)
    t._data = out
    t._grad_fn = node
    t._requires_grad = True
    t._vc = None
    if plan.out:
        node.out_data = out
        node.out_vc = t._vc = [0]
    else:
        node.out_data = node.out_vc = None
    if prim.view and isinstance(args[0], Tensor) and np.may_share_memory(out, args[0]._data):
        mark_view(t, args[0], prim, node.params)  # views share their base's version counter
    if overrides[0] and state._anomaly:
        node.stack = capture_stack()
    return t


def edges_of(args: Sequence[Any], needs: int) -> tuple:
    """Per input: its node (or the leaf tensor itself) when it needs a gradient, else None."""
    if len(args) == 2:  # (the common arities spelled out: no loop, no list)
        a, b = args
        return ((a._grad_fn or a) if needs & 1 else None, (b._grad_fn or b) if needs & 2 else None)
    if len(args) == 1:
        return (args[0]._grad_fn or args[0],)
    return tuple([(a._grad_fn or a) if (needs >> i) & 1 else None for i, a in enumerate(args)])


_ALL_NEED = (0, 1, 3, 7, 15, 31, 63, 127, 255)  # every input needs a gradient, by input count


def numbers_of(args: Sequence[Any]) -> tuple | None:
    """The Python numbers among the inputs, None elsewhere (None when there is none)."""
    found = tuple([a if a.__class__ is float or a.__class__ is int else None for a in args])
    return found if found != (None, None) else None


def saved_with_versions(args: Sequence[Any], positions: tuple) -> tuple[Any, Any]:
    """The inputs at `positions` (None elsewhere), and each saved Tensor's version now; the
    versions are None when every input is saved and is a Tensor no in-place op has touched (the
    common case, kept without building anything)."""
    if len(positions) == len(args):
        for a in args:
            if not isinstance(a, Tensor) or a._vc is not None:
                break
        else:
            return tuple(args), None
    saved: list = [None] * len(args)
    versions: list = [None] * len(args)
    for i in positions:
        a = saved[i] = args[i]
        if isinstance(a, Tensor):  # (a constant keeps version None: never checked)
            versions[i] = a._vc[0] if a._vc is not None else 0
    return tuple(saved), tuple(versions)


def any_float64(args: Sequence[Any]) -> bool:
    """Whether float64 came in explicitly (a float64 tensor or array), not from NumPy's promotion
    of integers or Python floats."""
    for a in args:
        d = a._data if isinstance(a, Tensor) else a
        if getattr(d, "dtype", None) is _F64:
            return True
    return False


def wrap(data: Any, grad_fn: Node | None = None) -> Tensor:
    """An array (or number) as a Tensor, on the tape behind `grad_fn` when one is given."""
    if not isinstance(data, _ndarray):
        data = np.asarray(data)
    t = _new(Tensor)
    t._data = data
    t._grad_fn = grad_fn
    t._requires_grad = grad_fn is not None
    t._vc = None
    return t


# ---- views ------------------------------------------------------------------------------------
def mark_view(view: Tensor, base: Tensor, prim: Primitive, params: dict) -> None:
    """A view shares its root's memory: it shares the root's version counter, and remembers the
    view ops from the root (so an in-place op can write through to the root on the tape, and the
    root's other views can be brought up to date after one, as PyTorch does)."""
    root, steps = getattr(base, "_base", None) or (base, ())
    view._vc = root._version_counter()
    view._base = (root, steps + ((prim, params),))
    views = getattr(root, "_views", None)
    if views is None:
        views = root._views = []
    elif len(views) >= 16 and len(views) & (len(views) - 1) == 0:  # at 16, 32, 64...: drop the
        views[:] = [r for r in views if r() is not None]  # dead ones (amortised O(1) per view)
    views.append(weakref.ref(view))


def live_views(root: Tensor) -> list:
    """The views of `root` that still exist."""
    return [v for v in (r() for r in getattr(root, "_views", None) or ()) if v is not None]
