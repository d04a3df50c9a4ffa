"""tapegrad.func: torch.func's function transforms, with its names and signatures: vmap, grad,
grad_and_value, vjp, jvp, jacrev, jacfwd, hessian, functional_call, stack_module_state.

Layer L5 (a namespace). tg.vmap is the same transform with JAX's keyword names.
"""

from __future__ import annotations

from typing import Any, Callable, TypeVar

from .module_state import functional_call, stack_module_state
from .transforms import grad, grad_and_value, hessian, jacfwd, jacrev, jvp, vjp
from .vmap import _vmap

F = TypeVar("F", bound=Callable[..., Any])


def vmap(
    func: F,
    in_dims: Any = 0,
    out_dims: Any = 0,
    randomness: str = "error",
    *,
    chunk_size: int | None = None,
) -> F:
    """`func` of one example, run on a batch: inputs batched along `in_dims` (an int, or a tuple
    with one entry per argument: an int, None for unbatched, or nested tuples/lists/dicts), the
    outputs' batch axes at `out_dims` (torch.func's names; keyword arguments are not batched).

    >>> tapegrad.func.vmap(tg.dot)(tg.ones(4, 3), tg.ones(4, 3))
    tensor([3., 3., 3., 3.])
    """
    return _vmap(func, in_dims, out_dims, randomness, chunk_size, ("in_dims", "out_dims"))


__all__ = [
    "functional_call",
    "grad",
    "grad_and_value",
    "hessian",
    "jacfwd",
    "jacrev",
    "jvp",
    "stack_module_state",
    "vjp",
    "vmap",
]
