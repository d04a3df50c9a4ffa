"""Recording: run a primitive on the arrays behind its arguments and, in grad mode, put one Node on
the tape. `record` is the only place a Node is made (built-in ops and custom Functions alike).

Layer L3: numpy, the L0 state, the rule table, the tape's Node and anomaly stacks, and the Tensor
class and the batched ops, handed over by tensor.py and batched.py (`use_tensor_class`,
`use_batching`). What a Node keeps is what its rules read (the primitive's SavePlan for the inputs
that need a gradient), so `x * 3` saves nothing of x.

This runs once per op, so its speed tricks (each marked where it is) save calls: a Python call
costs about 360 instructions under CPython 3.11 (callgrind), 1% of a chain-benchmark op forward
and backward. Fields are set directly rather than by an __init__ call; one and two inputs are
handled without loops; indices are counted by hand (enumerate() and zip() cost about a call).
"""

from __future__ import annotations

import itertools
import weakref
from operator import attrgetter
from typing import TYPE_CHECKING, Any, Callable, Sequence

import numpy as np

from .. import dtypes
from .._utils import ShapeError
from .._state import modules_running, overrides, state
from ..primitives.batched_array import BatchedArray
from ..primitives.batching import pointwise
from ..primitives import elementwise as E
from ..primitives.elementwise import cast
from ..primitives.registry import Primitive
from ..primitives.save_plan import SavePlan
from ..primitives.transcendental import fmod
from ..tape.anomaly import capture_stack
from ..tape.node import UNCHANGED_PAIR, UNCHANGED_SINGLE, Node

if TYPE_CHECKING:
    from .tensor import Tensor

_new = object.__new__
_ndarray = np.ndarray
_SHAPE, _DTYPE = attrgetter("shape"), attrgetter("dtype")
_NONE = np.dtype(object)  # (the dtype of what has none, in ints_wrapped: kind "O")
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
    if overrides[0] and (done := batched(prim, args, params)) is not None:
        return done  # (inside vmap: an op on batched tensors ran by its batching rule)
    try:  # (free in CPython >= 3.11 when nothing is raised)
        # `needs`: a bitmask of the inputs that require grad. One and two inputs are unwrapped
        # without a loop or a list, and the forward called without **{} (nearly every op)
        if len(args) == 1:
            a, needs = args[0], 0
            if isinstance(a, Tensor):
                needs = a._requires_grad
                a = a._data
            out = prim.forward(a, **params) if params else prim.forward(a)
        elif len(args) == 2:
            a, b = args
            needs = 0
            if isinstance(a, Tensor):
                needs = a._requires_grad
                a = a._data
            if isinstance(b, Tensor):
                needs |= b._requires_grad << 1
                b = b._data
            out = prim.forward(a, b, **params) if params else prim.forward(a, b)
            if a.__class__ is _ndarray is b.__class__ and a.dtype is not b.dtype:  # (mixed
                out = in_common_dtype(prim, out, a, b, params)  # dtypes: NumPy's rule can
                # differ from PyTorch's even for a float32 result, e.g. float16 + int16)
        else:
            arrays, needs = unwrap(args)
            out = prim.forward(*arrays, **params)
    except (ValueError, OverflowError) as e:  # shapes that do not broadcast, an int too large
        return retried(prim, args, params, e)
    if out.__class__ is not _ndarray:  # (a NumPy scalar)
        out = np.asarray(out)
    if out.dtype is not dtypes.default_float:  # (float32, the common case, passes by)
        out = as_pytorch_promotes(prim, out, args, params)
    return record(prim, out, args, params, needs)  # (off the tape when nothing needs grad)


def batched(prim: Primitive, args: Sequence[Any], params: dict) -> Tensor | None:
    """The op run by its batching rule while a vmap runs (tensor/batched.py: None when no input
    is batched), else None."""
    return _apply_batched(prim, args, params, record) if state.vmap_levels else None


def unwrap(args: Sequence[Any]) -> tuple[list, int]:
    """The arrays behind `args`, and the bitmask of the inputs that require grad."""
    needs, arrays = 0, []
    for i, a in enumerate(args):
        if isinstance(a, Tensor):
            needs |= a._requires_grad << i
            a = a._data
        arrays.append(a)
    return arrays, needs


# The ops PyTorch computes with an int operand beyond an integer tensor's range wrapped into its
# dtype (uint8 tensor + 300 adds 44); the others (where, masked_fill, pow, clamp) refuse it there,
# and NumPy's OverflowError refuses it here.
WRAPPING_OPS = frozenset({E.add, E.sub, E.mul, E.floor_divide, E.remainder, fmod})


def retried(prim: Primitive, args: Sequence[Any], params: dict, error: Exception) -> Tensor:
    """After a forward raised: a ValueError again, saying which op (shapes that do not broadcast,
    matrices that do not multiply); for an OverflowError of an arithmetic op (WRAPPING_OPS), a
    Python int beyond an integer tensor's range, the op on the int wrapped into its dtype, as
    PyTorch computes it (uint8 tensor + 300)."""
    if isinstance(error, ValueError):
        raise named_error(prim, error) from None
    wrapped = ints_wrapped(args) if prim in WRAPPING_OPS else None
    if wrapped is None:
        raise error
    return apply(prim, *wrapped, **params)


def ints_wrapped(args: Sequence[Any]) -> tuple | None:
    """args with each Python int wrapped into the integer dtype of the first integer tensor among
    them, as PyTorch casts it (dtypes.wrapped); None when there is no such tensor or every int
    fits already (then the OverflowError came from elsewhere: raised as it is)."""
    arrays = [a._data if isinstance(a, Tensor) else a for a in args]
    dtype = next((a.dtype for a in arrays if getattr(a, "dtype", _NONE).kind in "iu"), None)
    if dtype is None:
        return None
    wrapped = tuple(dtypes.wrapped(a, dtype) if a.__class__ is int else a for a in args)
    changed = any(a.__class__ is int and w != a for a, w in zip(args, wrapped))
    return wrapped if changed else None


def named_error(prim: Primitive, e: ValueError) -> ShapeError:
    """A forward's ValueError (operands that do not broadcast, matrices that do not multiply),
    saying which op raised it."""
    return ShapeError(str(e) if str(e).startswith(prim.name) else f"{prim.name}: {e}")


def as_pytorch_promotes(prim: Primitive, out: np.ndarray, args: Sequence[Any], params: dict) -> Any:
    """A floating result in the dtype PyTorch gives it: that of the floating inputs (tensors and
    arrays; Python floats never decide), else the default float dtype. NumPy decides otherwise
    for integer and bool inputs (sin of bools is float16 there, of int64 float64; float16 + int64
    is float64): such a result is cast here, the one place an op's output dtype is settled, or
    computed again from inputs in that dtype where NumPy's was less precise (bools: float16)."""
    if out.dtype.kind != "f" or prim is cast:  # (a cast's dtype is the one asked for)
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


def in_common_dtype(prim: Primitive, out: np.ndarray, a: Any, b: Any, params: dict) -> Any:
    """An elementwise op of arrays a and b, of different dtypes, computed in PyTorch's dtype
    (dtypes.result_dtype: a tensor with dimensions decides over a 0-d one unless the 0-d one is
    of a higher category; float16 stays float16 beside integers), where NumPy's differs: float32
    vector * 0-d float64 tensor is float32, int8 vector + 0-d int64 tensor int8. The inputs are
    cast first, as PyTorch casts them."""
    if prim.batch is not pointwise or out.dtype.kind not in "fiu":  # (pointwise: the
        return out  # broadcasting elementwise ops, whose inputs PyTorch promotes together)
    common = dtypes.arrays_dtype(a, b)
    if common.kind != "f" and out.dtype.kind == "f":  # (a floating op of integers, int / int:
        common = dtypes.default_float  # in the default float, not NumPy's smaller one: xlogy of
        # int16 and int8 took float16 logs there)
    elif common == out.dtype and prim.forward.__class__ is np.ufunc:  # (a ufunc casts both
        return out  # inputs to its loop's dtype first, as PyTorch does: nothing to redo)
    return np.asarray(prim.forward(a.astype(common), b.astype(common), **params))


def _values_as(a: Any, dtype: np.dtype) -> Any:
    """An input's values, integers and bools cast to `dtype` (numbers stay as they are)."""
    d = a._data if isinstance(a, Tensor) else a
    return d.astype(dtype) if isinstance(d, np.ndarray) and d.dtype.kind in "biu" else d


def off_tape(prim: Primitive, out: np.ndarray, args: Sequence[Any], params: dict) -> Tensor:
    """An op's output when nothing is recorded (grad mode off, or no input requiring grad)."""
    t = _new(Tensor)  # (fields set directly, not by a constructor call: a call less per op)
    t._data = out
    t._grad_fn = None
    t._requires_grad = False
    t._vc = None
    if prim.view:
        view_of(t, args, prim, params)
    return t


def record(
    prim: Primitive, out: np.ndarray, args: Sequence[Any], params: dict, needs: int
) -> Tensor:
    """Make the Node for one op (the only place Nodes are made) and return its output tensor (off
    the tape when no input needs a gradient (`needs` 0) or grad mode is off)."""
    if not needs or overrides[0] and not state._enabled:  # (overrides[0] first: it spares a
        return off_tape(prim, out, args, params)  # thread-local lookup)
    n = len(args)
    plan = prim.plans.get(needs) or prim.plan(needs, n)
    node = _new(Node)  # (fields set directly, as the Tensor's below: a call less per op)
    node.seq = _next_seq()
    node.prim = prim
    node.plan = plan
    node.params = params or _NO_PARAMS
    if n == 1:  # what the node keeps of its inputs, by arity and by which need a gradient
        keep_single(node, args, plan, out)
    elif n != 2:
        keep_many(node, args, needs, plan, out)
    elif needs == 3:
        keep_pair(node, args, plan, out)
    else:
        keep_pair_with_constant(node, args, needs, plan, out)
    node.pre_hooks = None
    node.scope = state.scope or None if modules_running else None  # (drawings group by it)
    if overrides[0] and state._anomaly:  # (some flag is off its default: anomaly mode, ...)
        capture_stack(node)
    t = _new(Tensor)
    t._data = out
    t._grad_fn = node
    t._requires_grad = True
    t._vc = None
    node.out_data = out if plan.out else None
    node.out_vc = None  # (made by the output's first in-place change: Tensor._version_counter)
    if prim.view:  # (views share their base's version counter)
        view_of(t, args, prim, node.params)
    return t


# ---- what a Node keeps of its inputs (Node's docstring says what each field means) -------------
# `edges`: per input its node (or the leaf itself) when it needs a gradient; `saved` and
# `versions`: what the plan says the rules read; `constants`: the Python numbers; `shapes` and
# `dtypes`: None when each input the plan shapes looks like the output. One function per common
# case, so that none of them loops over the inputs.
_NUMBERS = frozenset({float, int})


def keep_single(node: Node, args: Sequence[Any], plan: SavePlan, out: np.ndarray) -> None:
    """One input, a Tensor that needs a gradient (sin(x), x.sum(), ...)."""
    a = args[0]
    node.all_edges = (a._grad_fn or a,)
    node.constants = None
    if plan.saved:
        node.saved = args  # (the tuple of arguments itself: nothing to build)
        node.versions = UNCHANGED_SINGLE if a._vc is None else (a._vc[0],)
    else:
        node.saved = node.versions = None
    d = a._data
    if node.prim.elementwise or d.shape == out.shape and d.dtype is out.dtype:
        node.shapes = node.dtypes = None
    else:
        node.shapes, node.dtypes = (d.shape,), (d.dtype,)


def keep_pair(node: Node, args: Sequence[Any], plan: SavePlan, out: np.ndarray) -> None:
    """Two Tensors that need gradients (x * y, x @ w, ...)."""
    a, b = args
    node.all_edges = None  # (two edges: kept in two fields, not a tuple; Node.edges says why)
    node.first_edge, node.second_edge = a._grad_fn or a, b._grad_fn or b
    node.constants = None
    saved_at = plan.saved
    if len(saved_at) == 2:  # (a Tensor without a version counter is at version 0)
        va, vb = a._vc, b._vc
        node.saved = args
        node.versions = (
            UNCHANGED_PAIR if va is vb is None else (va[0] if va else 0, vb[0] if vb else 0)
        )
    elif saved_at:
        node.saved, node.versions = saved_values(args, saved_at)
    else:
        node.saved = node.versions = None
    da, db, shape, dtype = a._data, b._data, out.shape, out.dtype
    if da.shape == shape and db.shape == shape and da.dtype is dtype and db.dtype is dtype:
        node.shapes = node.dtypes = None
    else:
        node.shapes, node.dtypes = (da.shape, db.shape), (da.dtype, db.dtype)


def keep_pair_with_constant(
    node: Node, args: Sequence[Any], needs: int, plan: SavePlan, out: np.ndarray
) -> None:
    """Two inputs, one needing a gradient: the other a Python number (x * 2.0, 1 - x), or a
    Tensor or array that needs none."""
    a, b = args
    numbers: tuple | None
    if needs == 1:
        node.first_edge, node.second_edge = a._grad_fn or a, None
        numbers = node.constants = (  # (a Tensor or array beside it: no lookup, no call)
            _NUMBER_SECOND.get(id(b)) or number_pair(b, 1) if b.__class__ in _NUMBERS else None
        )
        d = a._data
    else:
        node.first_edge, node.second_edge = None, b._grad_fn or b
        numbers = node.constants = (
            _NUMBER_FIRST.get(id(a)) or number_pair(a, 0) if a.__class__ in _NUMBERS else None
        )
        d = b._data
    node.all_edges = None
    saved_at = plan.saved
    if not saved_at:
        node.saved = node.versions = None
    elif numbers is not None and len(saved_at) == 1 and numbers[saved_at[0]] is not None:
        node.saved, node.versions = numbers, None  # (x * 2.0: only the number is read)
    else:
        node.saved, node.versions = saved_values(args, saved_at)
    if numbers is not None and node.prim.elementwise:  # (a number never changes the other
        same = d.dtype is out.dtype  # input's shape; NumPy 1's value-based casting can change
        # its dtype: float16 * 1e5 is float32 there)
    else:
        same = pair_looks_like(args, needs, numbers is not None, plan, out)
    node.shapes, node.dtypes = (None, None) if same else shapes_and_dtypes(args)


def pair_looks_like(
    args: Sequence[Any], needs: int, number: bool, plan: SavePlan, out: np.ndarray
) -> bool:
    """keep_pair_with_constant's test when the constant is not a number beside an elementwise
    op: whether the inputs the plan shapes look like the output."""
    if len(plan.shaped) != 1:
        return looks_like(args, plan.shaped, out)
    # (only the input that needs a gradient: its shape is the test; an integer or bool tensor
    # beside it would make NumPy's rule float64, as in x * int32 tensor: fit casts it back)
    d = args[needs - 1]._data
    if d.shape != out.shape or d.dtype is not out.dtype:
        return False
    other = args[2 - needs]
    other = other._data if isinstance(other, Tensor) else other
    return number or getattr(other, "dtype", out.dtype).kind in "fc"


# The (None, number) and (number, None) pairs of keep_pair_with_constant, shared per number object
# (by id: the pair holds the number, so no other object gets its id while the pair is kept). A
# loop passes the same float each time (a literal, a learning rate), so a long tape holds a third
# fewer new objects, and the cyclic GC, which counts them, runs a third less often (chain, 100k
# ops, a step: 388 -> 258 young collections, 3 -> 2 full ones, 834k -> 643k objects scanned).
_NUMBER_FIRST: dict[int, tuple] = {}
_NUMBER_SECOND: dict[int, tuple] = {}
_SHARED_PAIRS_MAX = 256  # (a fresh number per op must not grow them without bound)


def number_pair(value: Any, at: int) -> tuple | None:
    """(None, value) (`at` 1) or (value, None) (`at` 0) when value is a Python number, kept for
    the next op with the same number object; None for anything else."""
    if value.__class__ not in _NUMBERS:
        return None
    pairs = _NUMBER_SECOND if at else _NUMBER_FIRST
    if len(pairs) >= _SHARED_PAIRS_MAX:
        pairs.clear()
    pair = pairs[id(value)] = (None, value) if at else (value, None)
    return pair


def keep_many(node: Node, args: Sequence[Any], needs: int, plan: SavePlan, out: np.ndarray) -> None:
    """Any number of inputs (linear, where, concatenate, custom Functions, ...)."""
    edges: list = []
    numbers: list | None = None
    i = -1
    for a in args:  # (one loop, i by hand: comprehensions and enumerate() cost a call each)
        i += 1
        if (needs >> i) & 1:
            edges.append(a._grad_fn or a)
            continue
        edges.append(None)
        if a.__class__ in _NUMBERS:
            numbers = numbers or [None] * len(args)
            numbers[i] = a
    node.all_edges = tuple(edges)
    node.constants = None if numbers is None else tuple(numbers)
    if plan.saved:
        node.saved, node.versions = saved_values(args, plan.saved)
    else:
        node.saved = node.versions = None
    same = looks_like(args, plan.shaped, out)
    node.shapes, node.dtypes = (None, None) if same else shapes_and_dtypes(args)


def saved_values(args: Sequence[Any], saved_at: tuple) -> tuple[tuple, tuple | None]:
    """The inputs at `saved_at` (None elsewhere) and the versions of the Tensors among them (None
    elsewhere; None for all when no Tensor is saved)."""
    if len(saved_at) == 1 and len(args) == 2:  # (the commonest, x * w saving w: no lists)
        i = saved_at[0]
        a = args[i]
        if not isinstance(a, Tensor):
            return ((None, a) if i else (a, None)), None
        v = a._vc[0] if a._vc is not None else 0
        return ((None, a), (None, v)) if i else ((a, None), (v, None))
    saved: list = [None] * len(args)
    versions: list = [None] * len(args)
    tensors = False
    for i in saved_at:
        a = saved[i] = args[i]
        if isinstance(a, Tensor):
            versions[i] = a._vc[0] if a._vc is not None else 0
            tensors = True
    return tuple(saved), tuple(versions) if tensors else None


def looks_like(args: Sequence[Any], at: tuple, out: np.ndarray) -> bool:
    """Whether every input at `at` is an array (or Tensor) of out's shape and dtype."""
    for i in at:
        d = args[i]
        d = d._data if isinstance(d, Tensor) else d
        if d.__class__ is not _ndarray or d.shape != out.shape or d.dtype is not out.dtype:
            return False
    return True


def shapes_and_dtypes(args: Sequence[Any]) -> tuple[tuple, tuple]:
    """Every input's shape and dtype (a Python number: () and None)."""
    arrays = [a._data if isinstance(a, Tensor) else a for a in args]
    try:  # (attrgetters: no Python frame per input)
        return tuple(map(_SHAPE, arrays)), tuple(map(_DTYPE, arrays))
    except AttributeError:  # a Python number among them
        return tuple(map(np.shape, arrays)), tuple([getattr(d, "dtype", None) for d in arrays])


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
def view_of(t: Tensor, args: Sequence[Any], prim: Primitive, params: dict) -> None:
    """Make `t`, the output of a view primitive, a view of its input when they share memory."""
    base = args[0]
    if isinstance(base, Tensor):
        d, b = t._data, base._data
        # (NumPy names a view's owner as its .base: a non-empty view of b or of b's owner lies in
        # b's memory, which spares the np.may_share_memory call, ~3,500 instructions, per w.T)
        owner = d.base if d.__class__ is _ndarray else None  # (inside vmap: a BatchedArray)
        if owner is not None and (owner is b or owner is getattr(b, "base", None)) and d.size:
            mark_view(t, base, prim, params)
        elif np.may_share_memory(d, b):
            mark_view(t, base, prim, params)


def mark_view(view: Tensor, base: Tensor, prim: Primitive, params: dict) -> None:
    """A view shares its root's memory: it shares the root's version counter, and remembers the
    view ops from the root (so an in-place op can write through to the root on the tape, and the
    root's other views can be brought up to date after one, as PyTorch does)."""
    from_root = getattr(base, "_base", None)
    if from_root is None:
        root, steps = base, ()
        # (None said once: getattr's default for a slot never set costs a raised AttributeError,
        # ~4,000 instructions, which a weight's `w.T` paid every step)
        base._base = None
    else:
        root, steps = from_root
    view._vc = root._vc or root._version_counter()  # (the counter exists after the first view)
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
