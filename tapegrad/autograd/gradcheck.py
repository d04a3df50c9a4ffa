"""gradcheck / gradgradcheck: the tape's gradients against central finite differences.

Layer L4. Use float64 inputs: float32 finite differences are too noisy for tight tolerances.
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

import numpy as np

from ..tensor import Tensor
from .functions import grad as autograd_grad


class GradcheckError(RuntimeError):
    """Raised by gradcheck when the tape and finite differences disagree."""


def _outputs(fn: Callable, inputs: Sequence[Tensor]) -> tuple:
    out = fn(*inputs)
    outs = out if isinstance(out, (tuple, list)) else (out,)
    for o in outs:
        if not isinstance(o, Tensor):
            raise TypeError(f"gradcheck: fn must return tensors, got {type(o).__name__}")
    return tuple(outs)


def _numerical_jacobians(fn: Callable, inputs: Sequence[Tensor], eps: float) -> list:
    """jac[k][i] has shape out_k.size x in_i.size (grad mode stays: fn may differentiate)."""
    outs = _outputs(fn, inputs)
    jac = [[np.zeros((o._data.size, t._data.size)) for t in inputs] for o in outs]
    for i, t in enumerate(inputs):
        if not t._requires_grad:
            continue
        if not (t._data.flags.c_contiguous and t._data.flags.writeable):
            t._data = np.array(t._data, order="C")  # perturbing a view or read-only array is lost
        flat = t._data.reshape(-1)
        for j in range(flat.size):
            orig = flat[j].copy()
            flat[j] = orig + eps
            plus = [o._data.astype(np.float64).ravel().copy() for o in _outputs(fn, inputs)]
            flat[j] = orig - eps
            minus = [o._data.astype(np.float64).ravel().copy() for o in _outputs(fn, inputs)]
            flat[j] = orig
            for k in range(len(outs)):
                jac[k][i][:, j] = (plus[k] - minus[k]) / (2 * eps)
    return jac


def _analytical_jacobians(fn: Callable, inputs: Sequence[Tensor]) -> list:
    outs = _outputs(fn, inputs)
    diff = [t for t in inputs if t._requires_grad]
    jac = [[np.zeros((o._data.size, t._data.size)) for t in inputs] for o in outs]
    for k, o in enumerate(outs):
        if not o._requires_grad:
            continue
        for r in range(o._data.size):
            seed = np.zeros(o._data.size, dtype=o.dtype)
            seed[r] = 1
            grads = autograd_grad(
                o, diff, Tensor._make(seed.reshape(o.shape)), retain_graph=True, allow_unused=True
            )
            it = iter(grads)
            for i, t in enumerate(inputs):
                if t._requires_grad:
                    g = next(it)
                    if g is not None:
                        jac[k][i][r] = g._data.astype(np.float64).ravel()
    return jac


def gradcheck(
    fn: Callable,
    inputs: Any,
    eps: float = 1e-6,
    atol: float = 1e-5,
    rtol: float = 1e-3,
    raise_exception: bool = True,
) -> bool:
    """Compare the tape's Jacobian of fn at `inputs` with central differences (use float64).

    >>> x = tg.randn(3, dtype=tg.float64, requires_grad=True)
    >>> tg.autograd.gradcheck(lambda x: (x * x).sum(), (x,))
    True
    """
    inputs = tuple(inputs) if isinstance(inputs, (tuple, list)) else (inputs,)
    if not any(isinstance(t, Tensor) and t._requires_grad for t in inputs):
        raise ValueError("gradcheck: at least one input must be a Tensor with requires_grad=True")
    inputs = tuple(t if isinstance(t, Tensor) else Tensor(t) for t in inputs)
    numerical = _numerical_jacobians(fn, inputs, eps)
    analytical = _analytical_jacobians(fn, inputs)
    for k, (num_row, ana_row) in enumerate(zip(numerical, analytical)):
        for i, (num, ana) in enumerate(zip(num_row, ana_row)):
            if not inputs[i]._requires_grad:
                continue
            if not np.allclose(ana, num, atol=atol, rtol=rtol):
                if not raise_exception:
                    return False
                worst = float(np.max(np.abs(ana - num)))
                raise GradcheckError(
                    f"Jacobian mismatch for output {k} with respect to input {i} (max abs "
                    "difference "
                    f"{worst:.3g}; atol={atol}, rtol={rtol}).\ntape (analytical):\n{ana}\n"
                    f"finite differences (numerical):\n{num}"
                )
    return True


def gradgradcheck(
    fn: Callable,
    inputs: Any,
    grad_outputs: Any = None,
    eps: float = 1e-6,
    atol: float = 1e-5,
    rtol: float = 1e-3,
    raise_exception: bool = True,
) -> bool:
    """gradcheck of the first-order gradients (checks the recorded backward, i.e. second order).

    The first-order gradients are differentiated with respect to the inputs and to the
    grad_outputs (random ones requiring grad by default), as in PyTorch.
    """
    inputs = tuple(inputs) if isinstance(inputs, (tuple, list)) else (inputs,)
    inputs = tuple(t if isinstance(t, Tensor) else Tensor(t) for t in inputs)
    outs = [o for o in _outputs(fn, inputs) if o._requires_grad]
    if grad_outputs is None:
        rng = np.random.default_rng(0)
        grad_outputs = tuple(
            Tensor(rng.standard_normal(o.shape), dtype=o.dtype, requires_grad=True) for o in outs
        )
    grad_outputs = (
        tuple(grad_outputs) if isinstance(grad_outputs, (tuple, list)) else (grad_outputs,)
    )
    n = len(inputs)

    def first_order(*args: Tensor) -> tuple:
        xs, gos = args[:n], args[n:]
        o = [o for o in _outputs(fn, xs) if o._requires_grad]
        d = [x for x in xs if x._requires_grad]
        gs = autograd_grad(o, d, gos, create_graph=True, allow_unused=True)
        # None (unused input) is a zero gradient: keep it as one so that finite differences
        # can disagree if the tape wrongly dropped a dependency
        return tuple(
            g if g is not None else Tensor._make(np.zeros(x.shape, x.dtype)) for g, x in zip(gs, d)
        )

    return gradcheck(
        first_order,
        inputs + grad_outputs,
        eps=eps,
        atol=atol,
        rtol=rtol,
        raise_exception=raise_exception,
    )
