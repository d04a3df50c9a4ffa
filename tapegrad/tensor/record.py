"""Recording: run a primitive on the arrays behind its arguments and, in grad mode, put one Node on
the tape. `record` is the only place a Node is made (built-in ops and custom Functions alike).

Layer L3: numpy, the L0 state, the rule table, the tape's Node and anomaly stacks, and the Tensor
class and the batched ops, handed over by tensor.py and batched.py (`use_tensor_class`,
`use_batching`). What a Node keeps is what its rules read (the primitive's SavePlan for the inputs
that need a gradient), so `x * 3` saves nothing of x.
"""

from __future__ import annotations

import itertools
import weakref
from operator import attrgetter
from typing import TYPE_CHECKING, Any, Callable, Sequence

import numpy as np

from .. import dtypes
from .._state import overrides, state
from ..primitives.batched_array import BatchedArray
from ..primitives.elementwise import cast
from ..primitives.registry import Primitive, SavePlan
from ..tape.anomaly import capture_stack
from ..tape.node import NUMBER_ONLY, Node

if TYPE_CHECKING:
    from .tensor import Tensor

_new = object.__new__
_ndarray = np.ndarray
_SHAPE, _DTYPE = attrgetter("shape"), attrgetter("dtype")
_NO_PARAMS: dict = {}  # shared by every node without parameters (never mutated)
_next_seq = itertools.count().__next__  # Node.seq (atomic under the GIL)


def use_tensor_class(cls: type[Tensor]) -> None:
    """Make Tensors of `cls` from now on: tensor.py calls this once, right after defining the class
    (this module cannot import it: the class is made of method rooms that record through here)."""
    global Tensor
    Tensor = cls  # type: ignore[misc]  # (mypy reads Tensor as the class imported above)


def _not_in_vmap(*args: Any) -> Any:
    raise RuntimeError("batched tensors need tapegrad.tensor.batched imported (tg.vmap imports it)")


# tensor/batched.py's apply and wrap, handed over by it when it loads (`use_batching`): it
# subclasses Tensor, so this module cannot import it; vmap imports it before any batched tensor
_apply_batched: Callable[..., Tensor | None] = _not_in_vmap
_wrap_batched: Callable[[Any, Node | None], Tensor] = _not_in_vmap


def use_batching(
    apply_batched: Callable[..., Tensor | None], wrap_batched: Callable[[Any, Node | None], Tensor]
) -> None:
    """Run ops on batched tensors with these from now on: tensor/batched.py calls this once."""
    global _apply_batched, _wrap_batched
    _apply_batched, _wrap_batched = apply_batched, wrap_batched


def apply(prim: Primitive, *args: Any, **params: Any) -> Tensor:
    """Run `prim` on the arrays behind `args`; record it when grad mode is on and an input requires
    grad. `apply(P.elementwise.mul, x, 2.0)` is `x * 2.0`."""
    if overrides[0] and state.vmap_levels:  # inside vmap: an op on batched tensors runs by its
        done = _apply_batched(prim, args, params, record)  # batching rule (tensor/batched.py)
        if done is not None:
            return done
    try:  # (free in CPython >= 3.11 when nothing is raised)
        needs = 0  # bitmask: the inputs that require grad, found while unwrapping the arrays
        n = len(args)
        if n == 1:  # the common arities without building a list
            a = args[0]
            if isinstance(a, Tensor):
                needs = a._requires_grad
                a = a._data
            out = prim.forward(a, **params) if params else prim.forward(a)
        elif n == 2:
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
    if out.dtype is not dtypes.default_float and prim is not cast:  # (float32 passes by)
        out = as_pytorch_promotes(prim, out, args, params)
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
    node.seq = _next_seq()
    node.prim = prim
    node.plan = plan
    node.params = params or _NO_PARAMS
    keep_inputs(node, args, needs, plan, out)
    node.pre_hooks = node.scope = None
    if overrides[0]:  # (some flag is off its default: a module running, anomaly mode, ...)
        node.scope = state.scope or None
        if state._anomaly:
            capture_stack(node)
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
    return t


_NUMBERS = frozenset({float, int})


def keep_inputs(node: Node, args: Sequence[Any], needs: int, plan: SavePlan, out: Any) -> None:
    """Set what a Node keeps of its inputs: `edges`, per input its node (or the leaf itself) when
    it needs a gradient, else None; `saved`, the inputs the plan saves, None elsewhere (or None for
    all: none saved), with their `versions` now (None for all: every input saved, a Tensor at
    version 0); `constants`, the Python numbers among them (None: none), which cost nothing to
    keep, so drawings can show every value; `shapes` and `dtypes` of every input, or None for both
    when each input the plan shapes looks like the output. One or two inputs are handled without
    loops (nearly every op)."""
    saved_at = plan.saved
    if len(args) == 1:
        a = args[0]  # (a Tensor that needs a gradient)
        node.edges, node.constants = (a._grad_fn or a,), None
        if not saved_at:
            node.saved = node.versions = None
        else:
            node.saved = args
            node.versions = None if a._vc is None else (a._vc[0],)
        d = a._data
        if node.prim.elementwise or d.shape == out.shape and d.dtype is out.dtype:
            node.shapes = node.dtypes = None
        else:
            node.shapes, node.dtypes = (d.shape,), (d.dtype,)
        return
    if len(args) == 2 and needs == 3:  # (two Tensors needing gradients: the commonest binary op)
        a, b = args
        node.edges, node.constants = (a._grad_fn or a, b._grad_fn or b), None
        if not saved_at:
            node.saved = node.versions = None
        elif len(saved_at) == 2:  # (both saved: versions None when both are at version 0)
            va, vb = a._vc, b._vc
            node.saved = args
            node.versions = None if va is vb is None else (va[0] if va else 0, vb[0] if vb else 0)
        else:
            node.saved, node.versions = _saved(args, saved_at)
        da, db, oshape, odtype = a._data, b._data, out.shape, out.dtype
        if da.shape == oshape and db.shape == oshape and da.dtype is odtype and db.dtype is odtype:
            node.shapes = node.dtypes = None
        else:
            node.shapes, node.dtypes = (da.shape, db.shape), (da.dtype, db.dtype)
        return
    numbers: Any = None
    shaped = plan.shaped
    if len(args) == 2:  # one of two needs a gradient (x * 2.0, 1 - x: numbers are drawn too)
        a, b = args
        if needs == 1:
            node.edges = (a._grad_fn or a, None)
            numbers = (None, b) if b.__class__ in _NUMBERS else None
            d = a._data
        else:
            node.edges = (None, b._grad_fn or b)
            numbers = (a, None) if a.__class__ in _NUMBERS else None
            d = b._data
        if numbers is not None and node.prim.elementwise:  # (a number never changes the other
            same = d.dtype is out.dtype  # input's shape; NumPy 1's value-based casting can
            # change its dtype: float16 * 1e5 is float32 there)
        elif len(shaped) == 1:  # (only the input that needs a gradient: its shape is the test)
            same = d.shape == out.shape and d.dtype is out.dtype
        else:
            same = looks_like(args, shaped, out)
    else:
        node.edges = tuple(
            [(a._grad_fn or a) if (needs >> i) & 1 else None for i, a in enumerate(args)]
        )
        same = looks_like(args, shaped, out)
    node.constants = numbers
    if not saved_at:
        node.saved = node.versions = None
    elif numbers is not None and len(saved_at) == 1 and numbers[saved_at[0]] is not None:
        node.saved, node.versions = numbers, NUMBER_ONLY  # (x * 2.0: only 2.0 is read)
    else:
        node.saved, node.versions = _saved(args, saved_at)
    if same:
        node.shapes = node.dtypes = None
    else:
        node.shapes, node.dtypes = shapes_and_dtypes(args)


def looks_like(args: Sequence[Any], at: tuple, out: np.ndarray) -> bool:
    """Whether every input at `at` is an array (or Tensor) of out's shape and dtype."""
    for i in at:
        d = args[i]
        d = d._data if isinstance(d, Tensor) else d
        if d.__class__ is not _ndarray or d.shape != out.shape or d.dtype is not out.dtype:
            return False
    return True


def _saved(args: Sequence[Any], saved_at: tuple) -> tuple[tuple, tuple]:
    """The inputs at `saved_at` (None elsewhere) and their versions (None: a constant)."""
    saved: list = [None] * len(args)
    versions: list = [None] * len(args)
    for i in saved_at:
        a = saved[i] = args[i]
        if isinstance(a, Tensor):  # (a constant keeps version None: never checked)
            versions[i] = a._vc[0] if a._vc is not None else 0
    return tuple(saved), tuple(versions)


def shapes_and_dtypes(args: Sequence[Any]) -> tuple[tuple, tuple]:
    """Every input's shape and dtype (a Python number: () and None)."""
    arrays = [a._data if isinstance(a, Tensor) else a for a in args]
    try:  # (attrgetters: no Python frame per input)
        return tuple(map(_SHAPE, arrays)), tuple(map(_DTYPE, arrays))
    except AttributeError:  # a Python number among them
        return tuple(map(np.shape, arrays)), tuple([getattr(d, "dtype", None) for d in arrays])


def as_pytorch_promotes(prim: Primitive, out: np.ndarray, args: Sequence[Any], params: dict) -> Any:
    """A floating result in the dtype PyTorch gives it: that of the floating inputs (tensors and
    arrays; Python floats never decide), else the default float dtype. NumPy decides otherwise
    for integer and bool inputs (sin of bools is float16 there, of int64 float64; float16 + int64
    is float64): such a result is cast here, the one place an op's output dtype is settled, or
    computed again from inputs in that dtype where NumPy's was less precise (bools: float16)."""
    if out.dtype.kind != "f":
        return out
    floating = None
    for a in args:
        d = getattr(a._data if isinstance(a, Tensor) else a, "dtype", None)
        if d is not None and d.kind == "f":
            if d is out.dtype:
                return out  # (an input of the result's dtype: NumPy and PyTorch agree)
            floating = d if floating is None else np.promote_types(floating, d)
    want = dtypes.default_float if floating is None else floating
    if out.dtype == want:
        return out
    if floating is None and out.dtype.itemsize < want.itemsize:  # (all inputs integers or bools)
        values = [_values_as(a, want) for a in args]
        return np.asarray(prim.forward(*values, **params))
    with np.errstate(over="ignore"):  # (too large for float32: inf, as PyTorch computes it)
        return out.astype(want)


def _values_as(a: Any, dtype: np.dtype) -> Any:
    """An input's values, integers and bools cast to `dtype` (numbers stay as they are)."""
    d = a._data if isinstance(a, Tensor) else a
    return d.astype(dtype) if isinstance(d, np.ndarray) and d.dtype.kind in "biu" else d


def wrap(data: Any, grad_fn: Node | None = None) -> Tensor:
    """An array (or number) as a Tensor, on the tape behind `grad_fn` when one is given."""
    if not isinstance(data, _ndarray):
        if data.__class__ is BatchedArray:  # (a batched tensor's values, inside vmap)
            return _wrap_batched(data, grad_fn)
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
