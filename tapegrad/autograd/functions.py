"""The two entry points into the engine: backward (into .grad) and grad (returned, .grad untouched).

Layer L4: validates what users pass, makes the seed gradients, and hands roots to tape/engine.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..tape.engine import run_backward
from ..tensor import Tensor, accumulate_grad


def _as_tuple(x: Any) -> tuple:
    if isinstance(x, (tuple, list)):
        return tuple(x)
    if isinstance(x, (Tensor, np.ndarray, np.generic, int, float)) or x is None:
        return (x,)  # a single output (numbers and arrays get a clear error later)
    try:
        return tuple(x)
    except TypeError:
        return (x,)


def key_of(t: Tensor) -> Any:
    return t._grad_fn if t._grad_fn is not None else t


def roots_and_seeds(
    outputs: Any, grads: Any, out_name: str, grad_name: str, single: bool = False
) -> tuple[list, list]:
    outputs = _as_tuple(outputs)
    grads = (None,) * len(outputs) if grads is None else _as_tuple(grads)
    if len(grads) != len(outputs):
        raise ValueError(
            f"{grad_name} has {len(grads)} entries but {out_name} has {len(outputs)}; "
            f"give one gradient per output (None for a scalar output)"
        )
    roots, seeds = [], []
    for i, (t, g) in enumerate(zip(outputs, grads)):
        label, glabel = (
            (out_name, grad_name) if single else (f"{out_name}[{i}]", f"{grad_name}[{i}]")
        )
        if not isinstance(t, Tensor):
            raise TypeError(
                f"{label} is a {type(t).__name__}, not a tapegrad Tensor: its value left the "
                "tape (e.g. through .numpy(), .item() or a NumPy function), so no gradient can "
                "flow "
                f"back through it; compute it with tapegrad ops instead"
            )
        if not t._requires_grad:
            raise RuntimeError(
                f"{label} does not require grad and has no grad_fn: nothing it was computed "
                "from requires grad, or it was computed under tg.no_grad() or from a detached "
                "tensor. "
                f"Set requires_grad=True on the inputs you differentiate with respect to"
            )
        if g is None:
            if t._data.size != 1:
                raise RuntimeError(
                    f"grad can be implicitly created only for scalar outputs, but {label} has "
                    f"shape {list(t.shape)}; pass {grad_name} with a tensor of that shape "
                    f"(e.g. tg.ones_like(output)), or reduce the output first (.sum())"
                )
            g = Tensor._make(np.array(1, t.dtype) if t.ndim == 0 else np.ones(t.shape, t.dtype))
        else:
            if not isinstance(g, Tensor):
                g = Tensor(np.asarray(g), dtype=t.dtype)
            if g.shape != t.shape:
                raise RuntimeError(
                    f"mismatch in shape: {glabel} has shape {list(g.shape)} but {label} "
                    f"has shape {list(t.shape)}; they must be equal"
                )
            if g.dtype != t.dtype:
                g = g.astype(t.dtype)
        roots.append(key_of(t))
        seeds.append(g)
    return roots, seeds


def _check_inputs(inputs: Any, name: str) -> tuple:
    inputs = _as_tuple(inputs)
    if not inputs:
        raise ValueError(f"{name} is empty; pass the tensors to differentiate with respect to")
    for i, t in enumerate(inputs):
        if not isinstance(t, Tensor):
            raise TypeError(f"{name}[{i}] must be a Tensor, got {type(t).__name__}")
        if not t._requires_grad:
            raise RuntimeError(
                f"{name}[{i}] does not require grad, so no gradient can be computed for it; create "
                "it "
                f"with requires_grad=True (or call .requires_grad_())"
            )
    return inputs


def backward(
    tensors: Any,
    grad_tensors: Any = None,
    retain_graph: bool | None = None,
    create_graph: bool = False,
    inputs: Any = None,
    trace: bool = False,
    *,
    _names: tuple = ("tensors", "grad_tensors"),
) -> None:
    """Accumulate the gradients of `tensors` into the `.grad` of leaves (or of `inputs`).

    >>> x = tg.tensor(2.0, requires_grad=True); tg.autograd.backward(x * x); x.grad
    tensor(4.)
    """
    single = not isinstance(tensors, (list, tuple))
    out_name, grad_name = (
        ("the tensor", "grad_tensors") if single and _names[0] == "tensors" else _names
    )
    roots, seeds = roots_and_seeds(tensors, grad_tensors, out_name, grad_name, single=single)
    retain = create_graph if retain_graph is None else retain_graph
    observer = None
    if trace:  # the teaching layer (L5) prints each step; imported only when asked for
        from ..teach.explain import trace_observer

        observer = trace_observer()
    if inputs is None:
        run_backward(roots, seeds, None, retain, create_graph, observer)
        return
    inputs = _check_inputs(inputs, "inputs")
    keys = [key_of(t) for t in inputs]
    captured = run_backward(roots, seeds, set(keys), retain, create_graph, observer)
    for t, k in zip(inputs, keys):
        g = captured.get(k)
        if g is not None:
            accumulate_grad(t, g, create_graph)


def grad(
    outputs: Any,
    inputs: Any,
    grad_outputs: Any = None,
    retain_graph: bool | None = None,
    create_graph: bool = False,
    allow_unused: bool | None = None,
    materialize_grads: bool = False,
) -> tuple:
    """The gradients of `outputs` with respect to `inputs`, as a tuple; no `.grad` is touched.

    >>> x = tg.tensor(3.0, requires_grad=True); tg.autograd.grad(x * x, x)
    (tensor(6.),)
    """
    inputs = _check_inputs(inputs, "inputs")
    single = not isinstance(outputs, (list, tuple))
    roots, seeds = roots_and_seeds(
        outputs, grad_outputs, "the output" if single else "outputs", "grad_outputs", single=single
    )
    retain = create_graph if retain_graph is None else retain_graph
    keys = [key_of(t) for t in inputs]
    captured = run_backward(roots, seeds, set(keys), retain, create_graph)
    result = []
    for i, (t, k) in enumerate(zip(inputs, keys)):
        g = captured.get(k)
        if g is None and k in captured:  # reached, but every rule on the way gave a zero (None)
            g = Tensor._make(np.zeros(t.shape, dtype=t.dtype))
        elif g is None:
            if materialize_grads:
                g = Tensor._make(np.zeros(t.shape, dtype=t.dtype))
            elif not allow_unused:
                raise RuntimeError(
                    f"inputs[{i}] (shape {list(t.shape)}) was not used to compute the outputs, so "
                    "it "
                    f"has no gradient; pass allow_unused=True to get None for it "
                    f"(or materialize_grads=True to get zeros)"
                )
        elif not create_graph and (g._grad_fn is not None or not g._data.flags.writeable):
            # off the tape, and a writable array of its own (rules may return broadcast views)
            g = Tensor._make(g._data if g._data.flags.writeable else g._data.copy())
        result.append(g)
    return tuple(result)
