"""torch.func's differentiation transforms, with its names, signatures and result structures:
grad, grad_and_value, vjp, jvp, jacrev, jacfwd, hessian.

Layer L5: tapegrad.functional (the machinery of tg.grad: lifting the inputs, the engine's VJPs),
vmap and this package's pytrees. The Jacobians are batched VJPs and JVPs (`vmap` over a basis of
cotangents or tangents: one batched backward, not one per row), as torch.func computes them.
"""

from __future__ import annotations

import functools
from typing import Any, Callable

import numpy as np

from .. import functional as fl
from ..tensor import Tensor
from .pytree import flatten, unflatten
from .vmap import _vmap


# ---- checks, in torch.func's terms ------------------------------------------------------------
def _check_argnums(argnums: Any) -> None:
    items = argnums if isinstance(argnums, tuple) else (argnums,)
    if not isinstance(argnums, (int, tuple)) or isinstance(argnums, bool) or not items:
        raise RuntimeError(f"argnums must be int or Tuple[int, ...], got: {type(argnums)}")
    for a in items:
        if not isinstance(a, int) or isinstance(a, bool):
            raise RuntimeError(f"argnums must be int or Tuple[int, ...], got: {argnums!r}")


def _positions(argnums: Any, nargs: int) -> list[int]:
    out = []
    for a in argnums if isinstance(argnums, tuple) else (argnums,):
        if not -nargs <= a < nargs:
            raise RuntimeError(
                f"Got argnum={a}, but only {nargs} positional inputs; argnums counts the "
                f"function's positional arguments (negative ones from the end)"
            )
        out.append(a % nargs)
    return out


def _tensors(tree: Any, what: str) -> None:
    """Inputs of a transform are tensors (or nested tuples/lists/dicts of them), as torch.func's."""
    for leaf in flatten(tree)[0]:
        if not isinstance(leaf, Tensor):
            raise ValueError(f"{what}: expected tensors to transform, got {type(leaf).__name__}")


def _lifted(tree: Any, keep: bool, what: str) -> Any:
    """Each tensor of the tree as a leaf to differentiate with respect to (tg.grad's lifting)."""
    leaves, spec = flatten(tree)
    return unflatten(spec, [fl._lift(leaf, keep, what) for leaf in leaves])


def _split_aux(out: Any, name: str) -> tuple:
    if not isinstance(out, tuple) or len(out) != 2:
        raise RuntimeError(
            f"{name}(f)(*args): with has_aux=True, f must return a tuple (output, aux), got "
            f"{type(out).__name__}" + (f" of {len(out)} items" if isinstance(out, tuple) else "")
        )
    return out


def _kept(tree: Any, keep: bool) -> Any:
    return tree if keep else fl.stop_gradient(tree)


# ---- grad -------------------------------------------------------------------------------------
def grad_and_value(func: Callable, argnums: Any = 0, has_aux: bool = False) -> Callable:
    """A function returning `(gradient, value)` of a scalar-valued `func` (with has_aux:
    `(gradient, (value, aux))`); the gradient is structured like the arguments at `argnums`.

    >>> tapegrad.func.grad_and_value(lambda x: (x * x).sum())(tg.tensor([1.0, 2.0]))
    (tensor([2., 4.]), tensor(5.))
    """
    _check_argnums(argnums)

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        positions = _positions(argnums, len(args))
        with fl._differentiating() as keep:
            call = list(args)
            for p in dict.fromkeys(positions):
                _tensors(args[p], "grad(f)(*args)")
                call[p] = _lifted(args[p], keep, f"argument {p}")
            out = func(*call, **kwargs)
            aux = None
            if has_aux:
                out, aux = _split_aux(out, "grad")
            if not isinstance(out, Tensor):
                raise RuntimeError(
                    f"grad(f)(*args): expected f(*args) to return a tensor, got "
                    f"{type(out).__name__}"
                )
            if out.ndim != 0:
                raise RuntimeError(
                    f"grad(f)(*args): expected f(*args) to return a scalar tensor, got one with "
                    f"{out.ndim} dims; for other outputs use vjp or jacrev"
                )
            lifted = [call[p] for p in positions]
            inputs = [t for arg in lifted for t in flatten(arg)[0]]
            grads = iter(fl._vjp([out], inputs, None, keep))
        per_arg = [unflatten(flatten(a)[1], [next(grads) for _ in flatten(a)[0]]) for a in lifted]
        result = per_arg[0] if isinstance(argnums, int) else tuple(per_arg)
        value = _kept(out, keep)
        return (result, (value, _kept(aux, keep))) if has_aux else (result, value)

    return wrapper


def grad(func: Callable, argnums: Any = 0, has_aux: bool = False) -> Callable:
    """A function returning the gradient of a scalar-valued `func` with respect to the arguments
    at `argnums` (with has_aux: `(gradient, aux)`).

    >>> tapegrad.func.grad(lambda x: (x ** 3).sum())(tg.tensor([1.0, 2.0]))
    tensor([ 3., 12.])
    """
    both = grad_and_value(func, argnums, has_aux)

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        g, value = both(*args, **kwargs)
        return (g, value[1]) if has_aux else g

    return wrapper


# ---- vjp, jvp ---------------------------------------------------------------------------------
def vjp(func: Callable, *primals: Any, has_aux: bool = False) -> tuple:
    """`(func(*primals), vjp_fn)` (with has_aux: `(output, vjp_fn, aux)`); `vjp_fn(cotangents)`,
    cotangents structured like the output, gives one gradient per primal, as a tuple.

    >>> out, vjp_fn = tapegrad.func.vjp(tg.sin, tg.tensor([0.0])); vjp_fn(tg.tensor([2.0]))
    (tensor([2.]),)
    """
    _tensors(primals, "vjp(f, *primals)")
    with fl._differentiating() as keep:
        lifted = [_lifted(p, keep, f"primals[{i}]") for i, p in enumerate(primals)]
        out = func(*lifted)
        aux = None
        if has_aux:
            out, aux = _split_aux(out, "vjp")
        outs, spec = flatten(out)
        fl._output_tensors(outs, "f's output")
    leaves = [t for p in lifted for t in flatten(p)[0]]

    def vjp_fn(cotangents: Any) -> tuple:
        cots, cot_spec = flatten(cotangents)
        if cot_spec != spec:
            raise RuntimeError(
                f"vjp_fn: the cotangents must be structured like the function's output: got "
                f"{cot_spec!r}, the output is {spec!r}"
            )
        for i, (c, o) in enumerate(zip(cots, outs)):
            if not isinstance(c, Tensor):
                raise RuntimeError(f"vjp_fn: cotangent {i} is a {type(c).__name__}, not a tensor")
            if tuple(c.shape) != tuple(o.shape):
                raise RuntimeError(
                    f"vjp_fn: mismatch in shape: cotangent {i} has shape {list(c.shape)} and "
                    f"output {i} has shape {list(o.shape)}"
                )
        with fl._differentiating() as keep_now:
            grads = iter(fl._vjp(outs, leaves, cots, keep or keep_now))
        return tuple(unflatten(flatten(p)[1], [next(grads) for _ in flatten(p)[0]]) for p in lifted)

    result = (_kept(out, keep), vjp_fn)
    return (*result, _kept(aux, keep)) if has_aux else result


def jvp(
    func: Callable, primals: Any, tangents: Any, *, strict: bool = False, has_aux: bool = False
) -> tuple:
    """`(func(*primals), J @ tangents)` (with has_aux: `(output, jvp_out, aux)`), by the double-VJP
    trick; primals and tangents are tuples, each tangent shaped like its primal.

    >>> tapegrad.func.jvp(lambda x: x * x, (tg.tensor(3.0),), (tg.tensor(1.0),))
    (tensor(9.), tensor(6.))
    """
    for name, given in (("primals", primals), ("tangents", tangents)):
        if not isinstance(given, tuple):
            raise RuntimeError(
                f"jvp(f, primals, tangents): expected {name} to be a tuple, e.g. so that "
                f"f(*primals) is a valid call; got {type(given).__name__}"
            )
    p_leaves, p_spec = flatten(primals)
    t_leaves, t_spec = flatten(tangents)
    if p_spec != t_spec:
        raise RuntimeError(
            f"jvp(f, primals, tangents): tangents must be structured like primals: got "
            f"{t_spec!r} for {p_spec!r}"
        )
    _tensors(primals, "jvp(f, primals, tangents)")
    _tensors(tangents, "jvp(f, primals, tangents)")
    for p, t in zip(p_leaves, t_leaves):
        if tuple(p.shape) != tuple(t.shape):
            raise RuntimeError(
                f"jvp: a tangent of shape {list(t.shape)} was given for a primal of shape "
                f"{list(p.shape)}; each tangent must have its primal's shape"
            )
    out, vjp_fn, *aux = vjp(func, *primals, has_aux=has_aux)
    if strict and any(not o.requires_grad for o in flatten(out)[0]):
        raise RuntimeError("jvp(strict=True): an output of f does not depend on the primals")
    zeros = unflatten(flatten(out)[1], [_zeros_like(o) for o in flatten(out)[0]])
    _, j_times = vjp(vjp_fn, zeros)  # u -> J^T u is linear in u: its VJP with t is J t
    (jv,) = j_times(tangents)
    return (out, jv, *aux)


def _zeros_like(t: Tensor) -> Tensor:
    return Tensor(np.zeros(t.shape, t.dtype))


# ---- Jacobians and the Hessian -------------------------------------------------------------------
def jacrev(
    func: Callable,
    argnums: Any = 0,
    *,
    has_aux: bool = False,
    chunk_size: int | None = None,
    _preallocate_and_copy: bool = False,
) -> Callable:
    """A function returning the Jacobian of `func` with respect to the arguments at `argnums`, by
    reverse mode: one batched VJP over the rows (`chunk_size` rows at a time if given); for each
    output, shape output.shape + input.shape, structured as output x argnums (torch.func's).

    >>> tapegrad.func.jacrev(tg.sin)(tg.tensor([0.0, 0.0]))
    tensor([[1., 0.],
            [0., 1.]])
    """
    _check_argnums(argnums)

    @functools.wraps(func)
    def wrapper(*args: Any) -> Any:
        positions = _positions(argnums, len(args))
        chosen = tuple(args[p] for p in positions)

        def of_chosen(*values: Any) -> Any:
            call = list(args)
            for p, v in zip(positions, values):
                call[p] = v
            return func(*call)

        out, vjp_fn, *aux = vjp(of_chosen, *chosen, has_aux=has_aux)
        outs, out_spec = flatten(out)
        basis = _basis(outs)  # per output leaf: (total rows, *its shape), one-hot per row
        rows = _vmap(vjp_fn, 0, 0, "error", chunk_size, ("in_dims", "out_dims"))(
            unflatten(out_spec, basis)
        )
        jac = _assemble(outs, out_spec, rows, chosen, argnums, rows_first=True)
        return (jac, aux[0]) if has_aux else jac

    return wrapper


def jacfwd(
    func: Callable, argnums: Any = 0, has_aux: bool = False, *, randomness: str = "error"
) -> Callable:
    """A function returning the same Jacobian as jacrev, by forward mode: one batched JVP over a
    basis of the inputs (better for few inputs and many outputs).

    >>> tapegrad.func.jacfwd(lambda x: x ** 2)(tg.tensor([1.0, 3.0]))
    tensor([[2., 0.],
            [0., 6.]])
    """
    _check_argnums(argnums)

    @functools.wraps(func)
    def wrapper(*args: Any) -> Any:
        positions = _positions(argnums, len(args))
        chosen = tuple(args[p] for p in positions)
        _tensors(chosen, "jacfwd(f)(*args)")

        def of_chosen(*values: Any) -> Any:
            call = list(args)
            for p, v in zip(positions, values):
                call[p] = v
            return func(*call)

        in_leaves, in_spec = flatten(chosen)
        basis = unflatten(in_spec, _basis(in_leaves))

        def column(*tangent: Any) -> Any:
            out, jv, *aux = jvp(of_chosen, chosen, tangent, has_aux=has_aux)
            return (jv, out, *aux)

        out_dims = (0, None, None) if has_aux else (0, None)  # (one output and aux for all)
        columns, out, *aux = _vmap(column, 0, out_dims, randomness, None, ("in_dims", "out_dims"))(
            *basis
        )
        outs, out_spec = flatten(out)
        jac = _assemble(outs, out_spec, columns, chosen, argnums, rows_first=False)
        return (jac, aux[0]) if has_aux else jac

    return wrapper


def hessian(func: Callable, argnums: Any = 0) -> Callable:
    """A function returning the second derivatives of `func`: jacfwd of jacrev (torch.func's).

    >>> tapegrad.func.hessian(lambda x: (x ** 3).sum())(tg.tensor([1.0, 2.0]))
    tensor([[ 6.,  0.],
            [ 0., 12.]])
    """
    return jacfwd(jacrev(func, argnums), argnums)


def _basis(leaves: list) -> list:
    """For tensors with n elements in all: per tensor, n one-hot tensors of its shape, stacked
    (the k-th of all of them together is the k-th basis vector of the joint space)."""
    total = sum(int(np.prod(t.shape)) for t in leaves)
    eye, out, start = np.eye(total), [], 0
    for t in leaves:
        n = int(np.prod(t.shape))
        out.append(
            Tensor(eye[:, start : start + n].reshape((total,) + tuple(t.shape)).astype(t.dtype))
        )
        start += n
    return out


def _assemble(
    outs: list, out_spec: Any, blocks: Any, chosen: tuple, argnums: Any, rows_first: bool
) -> Any:
    """The Jacobian blocks d out_i / d in_j (shape out_i.shape + in_j.shape) from the batched
    VJPs (rows: one per output element, `rows_first`) or JVPs (columns: one per input element),
    structured as output x argnums (x each argument's own tree)."""
    in_leaves = [flatten(c)[0] for c in chosen]
    flat_blocks = flatten(blocks)[0]
    per_output = []
    out_sizes = [int(np.prod(o.shape)) for o in outs]
    in_sizes = [int(np.prod(x.shape)) for leaves in in_leaves for x in leaves]
    for i, o in enumerate(outs):
        per_arg, j = [], 0
        for a, leaves in enumerate(in_leaves):
            pieces = []
            for x in leaves:
                if rows_first:  # rows[j]: (all output elements, *x.shape)
                    start = sum(out_sizes[:i])
                    block = flat_blocks[j][start : start + out_sizes[i]]
                    pieces.append(block.reshape(tuple(o.shape) + tuple(x.shape)))
                else:  # columns[i]: (all input elements, *o.shape)
                    start = sum(in_sizes[:j])
                    block = flat_blocks[i][start : start + in_sizes[j]]
                    moved = block.reshape((in_sizes[j], out_sizes[i]))
                    pieces.append(moved.T.reshape(tuple(o.shape) + tuple(x.shape)))
                j += 1
            per_arg.append(unflatten(flatten(chosen[a])[1], pieces))
        per_output.append(per_arg[0] if isinstance(argnums, int) else tuple(per_arg))
    return unflatten(out_spec, per_output)


__all__ = ["grad", "grad_and_value", "hessian", "jacfwd", "jacrev", "jvp", "vjp"]
