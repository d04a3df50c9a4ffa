"""Functional differentiation, MindSpore/JAX/torch.func style: grad, value_and_grad, vjp, jvp,
jacobian (jacrev), jacfwd, hessian.

Layer L5: every function here runs `fn` on the tape and asks tg.autograd.grad (the one engine) for
VJPs. Nesting: a call made while another differentiation runs (tg.grad, vjp, jacobian or an open
GradientTape; counted by `state.diff_depth`) keeps its results on the tape; an outermost one
detaches.
"""

from __future__ import annotations

import functools
import itertools
from typing import Any, Callable, Iterator, Sequence

import numpy as np

from ._utils import tree_leaves, tree_map
from .autograd.functions import grad as _tape_grad
from .compat.gradient_tape import GradientTape
from .math import stack
from ._state import state
from .tensor import Tensor
from .tensor.batched import at_level, fresh_leaf

__all__ = [
    "GradientTape",
    "grad",
    "hessian",
    "jacfwd",
    "jacobian",
    "jacrev",
    "jvp",
    "stop_gradient",
    "value_and_grad",
    "vjp",
]


# ---- the machinery every entry point shares ----------------------------------------------------
class _differentiating:
    """Grad mode on and depth + 1 while fn and its backward run; `with` gives `keep` (stay on
    tape). A class, not a contextlib generator: four Python calls less on every training step."""

    __slots__ = ("saved",)

    def __enter__(self) -> bool:
        # A `no_grad` inside an outer fn is respected: the inner result is then not kept.
        self.saved = saved = state.enabled
        keep = state.diff_depth > 0 and saved
        state.diff_depth += 1
        state.enabled = True
        return keep

    def __exit__(self, *exc: object) -> None:
        state.diff_depth -= 1
        state.enabled = self.saved


def _lift(arg: Any, keep: bool, where: str) -> Any:
    """A differentiated argument (tensor, number, array, or nested tuple of them) as tensors to
    differentiate with respect to, one per leaf, so each partial derivative stays partial. Inside
    vmap they are tensors of the innermost vmap's level, so each example gets its own gradient
    (also for an argument the batch shares)."""
    level = state.vmap_levels[-1] if state.vmap_levels else None

    def one(v: Any) -> Tensor:
        if isinstance(v, Tensor):
            if v.dtype.kind != "f":
                raise TypeError(
                    f"{where} is a tensor of dtype {v.dtype}; only floating-point inputs "
                    f"can be differentiated (use .astype(tg.float32))"
                )
            if level is not None:
                v = at_level(v, level)
                if not (keep and v.requires_grad):  # (else: a recorded alias, as below)
                    here = fresh_leaf(v, keep_below=keep)  # (an outer differentiation keeps
                    here.requires_grad = True  # seeing through it)
                    return here
            if keep and v.requires_grad:
                return v.clone()  # a recorded alias: the outer differentiation sees through it
            leaf = v.detach()  # a fresh leaf sharing memory: the caller's tape is never touched
        else:
            try:  # the tg.tensor rules: Python floats become float32, arrays keep their dtype
                data = Tensor(v).numpy()
            except (TypeError, ValueError):
                data = None
            if data is None or data.dtype.kind not in "iuf":
                raise TypeError(
                    f"{where} is a {type(v).__name__}; a differentiated argument must be "
                    f"a tensor, a number, a NumPy array, or a tuple/list of them"
                )
            leaf = Tensor(data if data.dtype.kind == "f" else data.astype(np.float32))
            if level is not None:
                leaf = at_level(leaf, level)
        leaf.requires_grad = True
        return leaf

    return tree_map(one, arg)


def _output_tensors(out: Any, what: str) -> list:
    """The tensors of fn's (nested) result, or a clear error if a value left the tape."""
    leaves = tree_leaves(out)
    for i, leaf in enumerate(leaves):
        if not isinstance(leaf, Tensor):
            where = what if len(leaves) == 1 else f"{what} (item {i})"
            why = (
                "return the value to differentiate"
                if leaf is None
                else "its value left the tape (through .numpy(), .item(), float() or a NumPy "
                "function), so tapegrad cannot tell how it depends on the inputs and will not "
                "return a silent zero; compute it with tapegrad ops (tg.sin, t.sum(), ...)"
            )
            raise TypeError(f"{where} is a {type(leaf).__name__}, not a tapegrad Tensor: {why}")
    if not leaves:
        raise ValueError(f"{what} contains no tensor to differentiate")
    return leaves


def _vjp(
    outs: Sequence[Tensor], inputs: Sequence[Tensor], cotangents: Sequence[Any] | None, keep: bool
) -> list:
    """sum_k cot_k . d(outs_k)/d(inputs) (ones by default); zeros of an input's shape and dtype
    where the outputs do not depend on it (MindSpore/JAX)."""
    if cotangents is None:  # (None for a plain one-element output: the engine's own seed of 1)
        cotangents = [
            None
            if o.__class__ is Tensor and o._data.size == 1
            else Tensor(np.ones(o.shape, o.dtype))
            for o in outs
        ]
    live = [(o, c) for o, c in zip(outs, cotangents) if o.requires_grad]
    if not live or not inputs:
        return [Tensor(np.zeros(t.shape, t.dtype)) for t in inputs]
    outs, cotangents = zip(*live)
    # retain_graph: a functional call must not free a graph the caller built outside fn; what fn
    # built is dropped anyway once we return. Inside vmap the rules run on (batched) tensors, as
    # when the backward is recorded; what is not kept is detached after.
    batched = bool(state.vmap_levels)
    grads = _tape_grad(
        outs,
        inputs,
        cotangents,
        retain_graph=True,
        create_graph=keep or batched,
        allow_unused=True,
        materialize_grads=True,
    )
    return [g.detach() for g in grads] if batched and not keep else list(grads)


def _check_positions(pos: Any, name: str) -> None:
    """Validate grad_position/argnums at creation time: None, an int, or a tuple of ints."""
    items = pos if isinstance(pos, (tuple, list)) else () if pos is None else (pos,)
    for p in items:
        if isinstance(p, bool) or not isinstance(p, (int, np.integer)):
            raise TypeError(
                f"{name} must be an int, a tuple of ints or None, got {pos!r} "
                f"({type(p).__name__} is not an int)"
            )
    if isinstance(pos, (tuple, list)) and not pos:
        raise ValueError(f"{name} is an empty tuple; give at least one position, or None")


def _resolve(pos: Any, nargs: int, name: str) -> list:
    """Positions as non-negative ints for a call with `nargs` positional arguments. Negative
    positions count from the end, as Python indices do."""
    if pos is None:
        return []
    out = []
    for p in pos if isinstance(pos, (tuple, list)) else (pos,):
        if not -nargs <= p < nargs:
            valid = f"0..{nargs - 1} (or -{nargs}..-1)" if nargs else "none"
            raise ValueError(
                f"{name} {p} is out of range: the function was called with {nargs} "
                f"positional argument(s), so valid positions are {valid}"
            )
        out.append(int(p) % nargs)
    return out


def _weights(weights: Any) -> tuple | None:
    """`weights` as a tuple of tensors requiring grad (a single Parameter is a 1-tuple)."""
    if weights is None:
        return None
    ws = (weights,) if isinstance(weights, Tensor) else weights
    if isinstance(ws, dict) or not hasattr(ws, "__iter__"):
        raise TypeError(
            f"weights must be a Parameter, a list/tuple of them or "
            f"net.trainable_params(), got {type(weights).__name__}"
        )
    ws = tuple(ws)
    for i, w in enumerate(ws):
        if not isinstance(w, Tensor):
            raise TypeError(
                f"weights[{i}] is a {type(w).__name__}, not a Parameter/Tensor; pass "
                f"net.trainable_params() or wrap the values: tg.nn.Parameter(...)"
            )
        if not w._requires_grad:  # (the attribute: a property call per weight per step)
            raise ValueError(
                f"weights[{i}] does not require grad, so it has no gradient; pass "
                f"net.trainable_params() or set requires_grad=True on it"
            )
    return ws


def _check_flag(value: Any, name: str) -> None:
    if not isinstance(value, bool):
        raise TypeError(f"{name} must be True or False, got {value!r}")


def _split_aux(out: Any) -> tuple:
    """has_aux: fn's (output, aux, ...) as (output, aux): aux is item 1 of a pair (torch.func,
    MindSpore), the tuple of items 1.. of a longer result (MindSpore)."""
    if not isinstance(out, (tuple, list)) or len(out) < 2:
        raise ValueError(
            f"has_aux=True needs fn to return a tuple (output, aux, ...) of at least two items, "
            f"but it returned a {type(out).__name__}; return (loss, aux) or use has_aux=False"
        )
    return out[0], (out[1] if len(out) == 2 else tuple(out[1:]))


def _positions(argnums: Any, grad_position: Any) -> Any:
    """argnums (torch.func, JAX) or its MindSpore name grad_position, checked."""
    if grad_position is not None:
        if argnums not in (0, None):
            raise TypeError("give argnums or grad_position (the same thing), not both")
        argnums = grad_position
    if argnums is None:
        raise TypeError("argnums must be an int or a tuple of ints, got None")
    _check_positions(argnums, "argnums")
    return argnums


def _pick(grads: Iterator, lifted: list, pos: Any) -> Any:
    """Regroup flat gradients like the lifted arguments: bare for an int position, else a tuple."""
    per_position = [tree_map(lambda _: next(grads), arg) for arg in lifted]
    return per_position[0] if isinstance(pos, (int, np.integer)) else tuple(per_position)


# ---- grad and value_and_grad ------------------------------------------------------------------
def _make_grad(
    fn: Callable, grad_position: Any, weights: Any, has_aux: bool, with_value: bool
) -> Callable:
    if not callable(fn):
        raise TypeError(f"fn must be a function or a network (Cell), got {type(fn).__name__}")
    if grad_position is None and weights is None:
        raise ValueError(
            "`grad_position` and `weights` can not be None at the same time: say what "
            "to differentiate with respect to (grad_position=0, or weights=net."
            "trainable_params())"
        )
    _check_flag(has_aux, "has_aux")
    _check_positions(grad_position, "grad_position")
    _weights(weights)  # fail early; checked again per call, as requires_grad may change

    def run(*args: Any, **kwargs: Any) -> Any:
        positions = (
            [] if grad_position is None else _resolve(grad_position, len(args), "grad_position")
        )
        ws = _weights(weights)
        with _differentiating() as keep:
            call_args = list(args)
            for p in dict.fromkeys(positions):
                call_args[p] = _lift(args[p], keep, f"argument {p} (grad_position)")
            out = fn(*call_args, **kwargs)
            if has_aux:
                _split_aux(out)
            lifted = [call_args[p] for p in positions]
            inputs = [t for arg in lifted for t in tree_leaves(arg)] + list(ws or ())
            value = out[0] if has_aux else out
            outs = [value] if value.__class__ is Tensor else _output_tensors(value, "fn's result")
            grads = iter(_vjp(outs, inputs, None, keep))
        input_part = _pick(grads, lifted, grad_position) if positions else None
        if ws is None:
            result = input_part
        else:  # weights always give a tuple; with positions too, (inputs part, weights part)
            weight_part = tuple(itertools.islice(grads, len(ws)))
            result = (input_part, weight_part) if positions else weight_part
        if not keep:  # (a plain tensor, the common result, without tree_map's calls)
            out = out.detach() if out.__class__ is Tensor else stop_gradient(out)
        if with_value:
            return out, result
        return (result, tuple(out[1:])) if has_aux else result

    return functools.update_wrapper(run, fn, updated=())  # fn may be a Cell: copy no __dict__


def grad(
    fn: Callable, grad_position: Any = 0, weights: Any = None, has_aux: bool = False
) -> Callable:
    """A function returning the gradient of `fn`, shaped as MindSpore's table says.

    grad_position an int: that input's gradient; a tuple: a tuple of them (negative positions count
    from the end). weights: a tuple of their gradients, even for one. Both: (inputs, weights) parts.
    has_aux: only output 0 is differentiated and `(grads, aux tuple)` is returned; otherwise all
    outputs are (each seeded with ones). An input the result does not depend on gets zeros.

    >>> tg.grad(lambda x, y: x * x * y)(tg.tensor(3.0), tg.tensor(2.0))
    tensor(12.)
    """
    return _make_grad(fn, grad_position, weights, has_aux, with_value=False)


def value_and_grad(
    fn: Callable, grad_position: Any = 0, weights: Any = None, has_aux: bool = False
) -> Callable:
    """Like grad, but the function returns `(fn's full output, grads)`.

    >>> tg.value_and_grad(lambda x: x * x)(tg.tensor(3.0))
    (tensor(9.), tensor(6.))
    """
    return _make_grad(fn, grad_position, weights, has_aux, with_value=True)


def stop_gradient(x: Any) -> Any:
    """The value cut from the tape (tensors in nested tuples/lists/dicts; the rest passes through).

    >>> tg.grad(lambda x: x * tg.stop_gradient(x))(tg.tensor(3.0))
    tensor(3.)
    """
    return tree_map(lambda v: v.detach() if isinstance(v, Tensor) else v, x)


# ---- vjp, jvp, jacobian, hessian --------------------------------------------------------------
def vjp(fn: Callable, *inputs: Any, weights: Any = None, has_aux: bool = False) -> tuple:
    """`(fn(*inputs), vjp_fn)`; `vjp_fn(cotangent)` gives a tuple, one gradient per input
    (cotangent^T J). has_aux: fn returns (output, aux); the call returns (output, vjp_fn, aux).

    With `weights=`, vjp_fn returns `(input grads, weight grads)`: MindSpore's sens_param.
    >>> out, f = tg.vjp(lambda x: x * x, tg.tensor(3.0)); f(tg.tensor(0.5))
    (tensor(3.),)
    """
    _check_flag(has_aux, "has_aux")
    ws = _weights(weights)
    with _differentiating() as keep:
        lifted = [_lift(x, keep, f"inputs[{i}]") for i, x in enumerate(inputs)]
        out = fn(*lifted)
        if has_aux:
            out, aux = _split_aux(out)
        outs = _output_tensors(out, "fn's result")
    leaves = [t for arg in lifted for t in tree_leaves(arg)] + list(ws or ())

    def vjp_fn(cotangent: Any) -> tuple:
        cots = (
            [cotangent] if isinstance(out, Tensor) else tree_leaves(cotangent)
        )  # [0.1, 0.1] is one
        if len(cots) != len(outs):
            raise ValueError(
                f"the cotangent has {len(cots)} tensor(s) but fn's result has "
                f"{len(outs)}; pass one per output (a tuple for a tuple result)"
            )
        cots = [
            c if isinstance(c, Tensor) else Tensor(np.asarray(c, o.dtype))
            for c, o in zip(cots, outs)
        ]
        for i, (c, o) in enumerate(zip(cots, outs)):
            if c.shape != o.shape:
                raise ValueError(
                    f"cotangent {i} has shape {list(c.shape)} but output {i} has shape "
                    f"{list(o.shape)}; a cotangent must have its output's shape"
                )
        with _differentiating() as keep_now:  # a cotangent on the tape may itself be differentiated
            grads = iter(_vjp(outs, leaves, cots, keep or keep_now))
        input_part = tuple(tree_map(lambda _: next(grads), arg) for arg in lifted)
        return input_part if ws is None else (input_part, tuple(next(grads) for _ in ws))

    result = (out if keep else stop_gradient(out)), vjp_fn
    return (*result, aux if keep else stop_gradient(aux)) if has_aux else result


def jvp(fn: Callable, inputs: Any, tangents: Any, has_aux: bool = False) -> tuple:
    """`(fn(*inputs), J @ tangents)` by the double-VJP trick: u -> J^T u is linear in u, so the VJP
    of that map with cotangent t is J t (reverse mode twice, no forward mode needed). has_aux: fn
    returns (output, aux) and the call returns (output, J @ tangents, aux).

    >>> tg.jvp(lambda x: x * x, (tg.tensor(3.0),), (tg.tensor(1.0),))
    (tensor(9.), tensor(6.))
    """
    _check_flag(has_aux, "has_aux")
    inputs = tuple(inputs) if isinstance(inputs, (tuple, list)) else (inputs,)
    tangents = tuple(tangents) if isinstance(tangents, (tuple, list)) else (tangents,)
    if len(tangents) != len(inputs):
        raise ValueError(
            f"jvp got {len(inputs)} input(s) but {len(tangents)} tangent(s); "
            f"give one tangent per input"
        )
    for i, (x, t) in enumerate(zip(inputs, tangents)):
        if np.shape(x) != np.shape(t):
            raise ValueError(
                f"tangents[{i}] has shape {list(np.shape(t))} but inputs[{i}] has shape "
                f"{list(np.shape(x))}; a tangent must have its input's shape"
            )
    out, vjp_fn, *aux = vjp(fn, *inputs, has_aux=has_aux)
    _, vjp_of_vjp = vjp(vjp_fn, _zeros_like_tree(out))  # any u: J^T u is linear in u
    (jv,) = vjp_of_vjp(tangents)
    return (out, jv, *aux)


def _zeros_like_tree(tree: Any) -> Any:
    return tree_map(lambda t: Tensor(np.zeros(t.shape, t.dtype)), tree)


def _as_lifted(v: Any) -> Tensor:
    """A differentiated argument's leaf as _lift makes it (numbers and integers become float32)."""
    t = v if isinstance(v, Tensor) else Tensor(v)
    return t if t.dtype.kind == "f" else t.astype(np.float32)


def _basis(x: Tensor, k: int) -> Tensor:
    """The k-th basis vector of x's space, shaped like x."""
    e = np.zeros(x.size, x.dtype)
    e[k] = 1
    return Tensor(e.reshape(x.shape))


def _block(vectors: list, o: Tensor, x: Tensor, axis: int) -> Tensor:
    """d o / d x (shape o.shape + x.shape) from its rows (axis 0) or columns (axis -1)."""
    if not vectors:
        return Tensor(np.zeros(o.shape + x.shape, x.dtype))
    return stack(vectors, axis).reshape(o.shape + x.shape)


def jacobian(
    fn: Callable, argnums: Any = 0, has_aux: bool = False, *, grad_position: Any = None
) -> Callable:
    """A function returning d fn / d args[argnums], of shape out.shape + in.shape, by reverse mode
    (one VJP per output element). A tuple argnums or a tuple result gives tuples (torch.func's and
    MindSpore's jacrev); has_aux: fn returns (output, aux) and the call gives (jacobian, aux).

    >>> tg.jacobian(lambda x: x * x)(tg.tensor([1.0, 2.0]))
    tensor([[2., 0.],
            [0., 4.]])
    """
    argnums = _positions(argnums, grad_position)
    _check_flag(has_aux, "has_aux")

    def jac_fn(*args: Any, **kwargs: Any) -> Any:
        positions = _resolve(argnums, len(args), "argnums")
        with _differentiating() as keep:
            call_args = list(args)
            for p in dict.fromkeys(positions):
                call_args[p] = _lift(args[p], keep, f"argument {p} (argnums)")
            out = fn(*call_args, **kwargs)
            if has_aux:
                out, aux = _split_aux(out)
            _output_tensors(out, "fn's result")
            lifted = [call_args[p] for p in positions]
            inputs = [t for arg in lifted for t in tree_leaves(arg)]

            def jac_of(o: Tensor) -> Any:
                # row k = e_k^T J, the VJP with the k-th basis vector
                rows = [_vjp([o], inputs, [_basis(o, k)], keep) for k in range(o.size)]
                blocks = [_block([r[j] for r in rows], o, x, 0) for j, x in enumerate(inputs)]
                return _pick(iter(blocks), lifted, argnums)

            jac = tree_map(jac_of, out)
        return (jac, aux if keep else stop_gradient(aux)) if has_aux else jac

    return functools.update_wrapper(jac_fn, fn, updated=())


def jacrev(
    fn: Callable,
    argnums: Any = 0,
    has_aux: bool = False,
    *,
    grad_position: Any = None,
    chunk_size: int | None = None,
) -> Callable:
    """torch.func's and MindSpore's name for tg.jacobian (reverse mode, one VJP per output element).

    >>> tg.jacrev(lambda x, y: x * y, grad_position=1)(tg.tensor([1.0, 2.0]), tg.tensor([3.0, 4.0]))
    tensor([[1., 0.],
            [0., 2.]])
    """
    return jacobian(fn, argnums, has_aux, grad_position=grad_position)


def jacfwd(
    fn: Callable,
    argnums: Any = 0,
    has_aux: bool = False,
    *,
    grad_position: Any = None,
    randomness: str = "error",
) -> Callable:
    """The same Jacobian as jacrev, built column by column: column k is the JVP with the k-th basis
    tangent of the inputs (one fn call, one JVP per input element; better for few inputs).

    >>> tg.jacfwd(lambda x: x ** 3)(tg.tensor([1.0, 2.0]))
    tensor([[ 3.,  0.],
            [ 0., 12.]])
    """
    argnums = _positions(argnums, grad_position)
    _check_flag(has_aux, "has_aux")

    def jac_fn(*args: Any, **kwargs: Any) -> Any:
        positions = _resolve(argnums, len(args), "argnums")
        unique = list(dict.fromkeys(positions))

        def of_unique(*diff: Any) -> Any:
            call = list(args)
            for p, v in zip(unique, diff):
                call[p] = v
            return fn(*call, **kwargs)

        out, vjp_fn, *aux = vjp(of_unique, *(args[p] for p in unique), has_aux=has_aux)
        _, j_times = vjp(vjp_fn, _zeros_like_tree(out))  # t -> J t, as in jvp
        flat = [_as_lifted(v) for p in unique for v in tree_leaves(args[p])]
        slots, n = {}, 0  # position -> indices of its leaves in `flat`
        for p in unique:
            slots[p] = range(n, n + len(tree_leaves(args[p])))
            n += len(slots[p])
        zeros = [Tensor(np.zeros(x.shape, x.dtype)) for x in flat]
        columns = [  # columns[j][k][i]: output leaf i of J e_k, e_k a basis vector of leaf j
            [
                tree_leaves(j_times(zeros[:j] + [_basis(x, k)] + zeros[j + 1 :]))
                for k in range(x.size)
            ]
            for j, x in enumerate(flat)
        ]
        output_index = iter(range(len(tree_leaves(out))))

        def jac_of(o: Tensor) -> Any:
            i = next(output_index)
            blocks = [
                _block([c[i] for c in columns[j]], o, flat[j], -1)
                for p in positions
                for j in slots[p]
            ]
            return _pick(iter(blocks), [args[p] for p in positions], argnums)

        jac = tree_map(jac_of, out)
        return (jac, *aux) if has_aux else jac

    return functools.update_wrapper(jac_fn, fn, updated=())


def hessian(fn: Callable, argnums: Any = 0) -> Callable:
    """A function returning the second derivatives of `fn`: the jacobian of its jacobian, of shape
    out.shape + in.shape + in.shape (a tuple argnums gives a tuple of tuples).

    >>> tg.hessian(lambda x: (x ** 3).sum())(tg.tensor([1.0, 2.0]))
    tensor([[ 6.,  0.],
            [ 0., 12.]])
    """
    return jacobian(jacobian(fn, argnums), argnums)
