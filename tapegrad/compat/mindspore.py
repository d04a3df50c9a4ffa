"""MindSpore's remaining names for its users' programs: GradOperation, ParameterTuple, set_context.

Layer L5: GradOperation is tg.grad / tg.vjp (functional.py) with MindSpore's flags and result
structures; ParameterTuple checks its items are nn.Parameters; set_context accepts MindSpore's modes
(both run eagerly here) and the CPU as device. Re-exported by tg.ops and tg.
"""

from __future__ import annotations

import inspect
from typing import Any, Callable, Iterable

from .. import functional as F
from ..nn.module import Module
from ..nn.parameter import Parameter
from ..tensor import Tensor

__all__ = [
    "GRAPH_MODE",
    "PYNATIVE_MODE",
    "GradOperation",
    "ParameterTuple",
    "get_context",
    "set_context",
]


class ParameterTuple(tuple):
    """A tuple of Parameters, as `GradOperation(get_by_list=True)` and `tg.grad(weights=)` take.

    >>> params = tg.ParameterTuple(tg.nn.Dense(3, 1).trainable_params()); len(params)
    2
    """

    def __new__(cls, iterable: Iterable[Any]) -> "ParameterTuple":
        items = tuple(iterable)
        for i, p in enumerate(items):
            if not isinstance(p, Parameter):
                raise TypeError(
                    f"ParameterTuple takes Parameters only, but item {i} is a "
                    f"{type(p).__name__}; pass net.trainable_params() or wrap the value: "
                    f"tg.nn.Parameter(...)"
                )
        return super().__new__(cls, items)


def _check_flag(name: str, value: Any) -> bool:
    if not isinstance(value, bool):
        raise TypeError(f"GradOperation's {name} must be True or False, got {value!r}")
    return value


def _signature_of(fn: Callable) -> inspect.Signature | None:
    """The signature fn's caller must satisfy (a Cell's construct/forward), if Python can tell."""
    if isinstance(fn, Module):
        forward = type(fn).forward
        fn = fn.construct if forward is Module.forward and hasattr(fn, "construct") else fn.forward
    try:
        return inspect.signature(fn)
    except (TypeError, ValueError):
        return None


def _binds(sig: inspect.Signature | None, args: tuple) -> bool:
    if sig is None:
        return True
    try:
        sig.bind(*args)
    except TypeError:
        return False
    return True


class GradOperation:
    """MindSpore's gradient maker: `GradOperation(...)(fn)` or `(...)(fn, params)` is a function
    returning, for a call with fn's inputs (and, with sens_param, dL/dout last):

    | get_all | get_by_list | returns                              |
    | ------- | ----------- | ------------------------------------ |
    | False   | False       | grad of input 0                      |
    | True    | False       | (grads of all inputs)                |
    | False   | True        | (grads of params)                    |
    | True    | True        | ((grads of all inputs), (grads of params)) |

    Several outputs are each seeded with ones (their sum is differentiated), unless sens_param=True:
    then the last argument is the gradient of the output (same shape), as a VJP.

    >>> tg.ops.GradOperation()(lambda x, y: x * y)(tg.tensor(3.0), tg.tensor(2.0))
    tensor(2.)
    """

    def __init__(
        self, get_all: bool = False, get_by_list: bool = False, sens_param: bool = False
    ) -> None:
        self.get_all = _check_flag("get_all", get_all)
        self.get_by_list = _check_flag("get_by_list", get_by_list)
        self.sens_param = _check_flag("sens_param", sens_param)

    def __repr__(self) -> str:
        return (
            f"GradOperation(get_all={self.get_all}, get_by_list={self.get_by_list}, "
            f"sens_param={self.sens_param})"
        )

    def __call__(self, fn: Callable, weights: Any = None) -> Callable:
        if not callable(fn):
            raise TypeError(f"GradOperation differentiates a function or a Cell, got {fn!r}")
        if self.get_by_list and weights is None:
            raise ValueError(
                "GradOperation(get_by_list=True) returns the gradients of the parameters you "
                "pass: call it as grad_op(net, params), e.g. params = "
                "ParameterTuple(net.trainable_params())"
            )
        if weights is not None and not self.get_by_list:
            raise ValueError(
                "parameters were passed to a GradOperation made without get_by_list=True, so "
                "their gradients would not be returned; make it GradOperation(get_by_list=True)"
            )
        sig = _signature_of(fn)

        def gradient_function(*args: Any) -> Any:
            if self.sens_param:
                return self._with_sens(fn, sig, args, weights)
            if not args and not self.get_by_list:
                if self.get_all:
                    return ()
                raise TypeError(
                    "the gradient function was called without inputs, so there is no input 0 "
                    "to differentiate; call it with fn's inputs"
                )
            position: Any = tuple(range(len(args))) if self.get_all and args else None
            if not self.get_all and not self.get_by_list:
                position = 0
            return F.grad(fn, position, weights)(*args)

        return gradient_function

    def _with_sens(self, fn: Callable, sig: Any, args: tuple, weights: Any) -> Any:
        if not args:
            raise TypeError(
                "GradOperation(sens_param=True): the gradient function takes fn's inputs and "
                "then the sensitivity dL/dout (the output's shape): grad_fn(x, y, sens)"
            )
        inputs, sens = args[:-1], args[-1]
        if not _binds(sig, inputs) and _binds(sig, args):
            raise TypeError(
                f"GradOperation(sens_param=True) takes the sensitivity (dL/dout) as the last "
                f"argument, after fn's inputs, but this call passes {len(args)} argument(s), "
                f"all of which fn takes as inputs: add the sensitivity, grad_fn(*inputs, sens)"
            )
        positions = range(len(inputs)) if self.get_all else () if self.get_by_list else (0,)
        if not self.get_all and not self.get_by_list and not inputs:
            raise TypeError(
                "the gradient function got only the sensitivity: pass fn's inputs before it"
            )

        def of_differentiated(*diff: Any) -> Any:
            call = list(inputs)
            for p, v in zip(positions, diff):
                call[p] = v
            return fn(*call)

        out, vjp_fn = F.vjp(of_differentiated, *(inputs[p] for p in positions), weights=weights)
        if isinstance(out, Tensor) and tuple(getattr(sens, "shape", ())) != out.shape:
            raise ValueError(
                f"GradOperation(sens_param=True): the sensitivity (the last argument, dL/dout) "
                f"has shape {list(getattr(sens, 'shape', ()))}, but fn's output has shape "
                f"{list(out.shape)}; pass a tensor of the output's shape and dtype"
            )
        grads = vjp_fn(sens)
        input_part, weight_part = grads if weights is not None else (grads, None)
        if self.get_all and self.get_by_list:
            return input_part, weight_part
        if self.get_by_list:
            return weight_part
        return input_part if self.get_all else input_part[0]


# ---- the context: both of MindSpore's modes run eagerly here ------------------------------------
GRAPH_MODE = 0
PYNATIVE_MODE = 1
_CONTEXT: dict = {"mode": PYNATIVE_MODE, "device_target": "CPU", "device_id": 0}


def set_context(**kwargs: Any) -> None:
    """Accept MindSpore's context settings: `mode` GRAPH_MODE or PYNATIVE_MODE (both run eagerly,
    op by op, in tapegrad), `device_target` "CPU" (the only device), and any other setting.

    >>> tg.set_context(mode=tg.PYNATIVE_MODE, device_target="CPU")
    """
    mode = kwargs.get("mode", _CONTEXT["mode"])
    if isinstance(mode, bool) or mode not in (GRAPH_MODE, PYNATIVE_MODE):
        raise ValueError(
            f"set_context: mode must be tg.GRAPH_MODE (0) or tg.PYNATIVE_MODE (1), got {mode!r}"
        )
    device = kwargs.get("device_target", "CPU")
    if not isinstance(device, str) or device.upper() != "CPU":
        raise ValueError(
            f"set_context: device_target {device!r} is not available; tapegrad computes with "
            f"NumPy on the CPU, so use device_target='CPU' (or leave it out)"
        )
    _CONTEXT.update(kwargs, device_target="CPU")


def get_context(attr_key: str) -> Any:
    """A setting made by set_context (or its default): `tg.get_context("mode")` -> 1."""
    if attr_key not in _CONTEXT:
        raise ValueError(f"get_context: no setting {attr_key!r}; known ones are {sorted(_CONTEXT)}")
    return _CONTEXT[attr_key]
