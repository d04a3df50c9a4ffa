"""Elementwise primitives and their rules.

Rules: `g` is dL/dout, `out` the forward result, inputs named as in the forward. Each rule returns
dL/dinput at the broadcast shape (the engine un-broadcasts and casts), or None for a zero gradient.
Rules use operators where they can: on Tensors (create_graph) they record, on the plain arrays of
an unrecorded backward they are NumPy itself. Masks that are piecewise-constant in the inputs (relu,
abs, max) are plain arrays: their own derivative is zero, so higher orders stay correct.
Most forwards are NumPy's own ufuncs, registered as they are (`add = primitive(...)(np.add)`): no
wrapper function, so one Python call less per op, forward and in the rules that call them.
Layer L1: numpy and registry only.
"""

from __future__ import annotations

import numpy as np

from .registry import Primitive, primitive, value


def _mask(g, condition):
    """A 0/1 array (or fractional weights) as a constant of g's dtype."""
    return np.asarray(condition, dtype=g.dtype)


add: Primitive = primitive("add", "x + y", "g", "g", saves=False)(np.add)
add.defvjp(lambda g, out, x, y: g, lambda g, out, x, y: g)


sub: Primitive = primitive("sub", "x - y", "g", "-g", saves=False)(np.subtract)
sub.defvjp(lambda g, out, x, y: g, lambda g, out, x, y: -g)


mul: Primitive = primitive("mul", "x * y", "g * y", "g * x")(np.multiply)
mul.defvjp(lambda g, out, x, y: g * y, lambda g, out, x, y: g * x)


div: Primitive = primitive("div", "x / y", "g / y", "-g * x / y**2")(np.true_divide)
div.defvjp(lambda g, out, x, y: g / y, lambda g, out, x, y: -(g * x) / (y * y))


neg: Primitive = primitive("neg", "-x", "-g", saves=False, keeps_shape=True)(np.negative)
neg.defvjp(lambda g, out, x: -g)


@primitive(
    "pow",
    "x ** y",
    "g * y * x**(y-1)   (0 at 0**0)",
    "g * out * log(x)   (0 where x == 0)",
    needs_out=True,
)
def pow(x, y):
    return x**y


def _pow_grad_y(g, out, x, y):
    grad = g * out * log(where(x, 1.0, cond=value(x) > 0))
    return where(grad, 0.0, cond=value(x) != 0) if np.any(value(x) == 0) else grad


def _pow_grad_x(g, out, x, y):
    if np.any(value(y) == 0) and np.any(value(x) == 0):
        # 0**0: y * x**(y-1) would be 0 * inf; with x read as 1 there it is the right 0
        x = where(1.0, x, cond=(value(x) == 0) & (value(y) == 0))
    return g * (y * pow(x, y - 1.0))


pow.defvjp(_pow_grad_x, _pow_grad_y)


exp: Primitive = primitive(
    "exp", "exp(x)", "g * out", saves=False, needs_out=True, keeps_shape=True
)(np.exp)
exp.defvjp(lambda g, out, x: g * out)


log: Primitive = primitive("log", "log(x)", "g / x", keeps_shape=True)(np.log)
log.defvjp(lambda g, out, x: g / x)


sin: Primitive = primitive("sin", "sin(x)", "g * cos(x)", keeps_shape=True)(np.sin)
sin.defvjp(lambda g, out, x: g * cos(x))


cos: Primitive = primitive("cos", "cos(x)", "-g * sin(x)", keeps_shape=True)(np.cos)
cos.defvjp(lambda g, out, x: -(g * sin(x)))


tan: Primitive = primitive(
    "tan", "tan(x)", "g * (1 + out**2)", saves=False, needs_out=True, keeps_shape=True
)(np.tan)
tan.defvjp(lambda g, out, x: g * (out * out + 1.0))


tanh: Primitive = primitive(
    "tanh", "tanh(x)", "g * (1 - out**2)", saves=False, needs_out=True, keeps_shape=True
)(np.tanh)
tanh.defvjp(lambda g, out, x: tanh_backward(g, out))


# Below this many elements a fresh temporary is cheaper than NumPy's handling of out= (measured).
_REUSE_FROM = 16384


def _times_g(g, t):
    """g * t for a temporary array t: written into t when g has its shape and dtype, so a backward
    pass allocates one array per layer instead of three (as hand-written NumPy would)."""
    if g.__class__ is np.ndarray and g.shape == t.shape and g.dtype == t.dtype:
        return np.multiply(g, t, out=t)
    return g * t


# tanh's and sigmoid's rules as ops of their own (as PyTorch's tanh_backward): under create_graph a
# backward through them records one node instead of three.
@primitive("tanh_backward", "g * (1 - y**2)", "(1 - y**2) * dL/dout", "-2 * g * y * dL/dout")
def tanh_backward(g, y):
    t = y * y
    if t.__class__ is np.ndarray and t.size >= _REUSE_FROM:
        return _times_g(g, np.subtract(1, t, out=t))
    return g * (1 - t)


tanh_backward.defvjp(
    lambda gg, out, g, y: gg * (1.0 - y * y), lambda gg, out, g, y: -2.0 * (gg * g * y)
)


def _sigmoid_forward(x):
    # exp of a non-positive number only: no overflow for large |x|
    e = np.exp(-np.abs(x))
    return np.where(x >= 0, 1 / (1 + e), e / (1 + e))  # float dtype as exp's (never int)


@primitive(
    "sigmoid",
    "1 / (1 + exp(-x))",
    "g * out * (1 - out)",
    saves=False,
    needs_out=True,
    keeps_shape=True,
)
def sigmoid(x):
    return _sigmoid_forward(x)


sigmoid.defvjp(lambda g, out, x: sigmoid_backward(g, out))


@primitive("sigmoid_backward", "g * y * (1 - y)", "y * (1 - y) * dL/dout", "g * (1 - 2y) * dL/dout")
def sigmoid_backward(g, y):
    t = 1 - y
    if t.__class__ is np.ndarray and t.size >= _REUSE_FROM:
        return _times_g(g, np.multiply(y, t, out=t))
    return g * (y * t)


sigmoid_backward.defvjp(
    lambda gg, out, g, y: gg * (y * (1.0 - y)), lambda gg, out, g, y: gg * g * (1.0 - 2.0 * y)
)


@primitive("relu", "max(x, 0)", "g * (x > 0)", keeps_shape=True)
def relu(x):
    return np.maximum(x, 0)


relu.defvjp(lambda g, out, x: g * _mask(g, value(x) > 0))


sqrt: Primitive = primitive(
    "sqrt", "sqrt(x)", "g / (2 * out)", saves=False, needs_out=True, keeps_shape=True
)(np.sqrt)
sqrt.defvjp(lambda g, out, x: g / (out * 2.0))


abs: Primitive = primitive("abs", "|x|", "g * sign(x)   (0 at x == 0)", keeps_shape=True)(np.abs)
abs.defvjp(lambda g, out, x: g * _mask(g, np.sign(value(x))))


sign: Primitive = primitive("sign", "sign(x)", "0", saves=False, keeps_shape=True)(np.sign)
sign.defvjp(None)


def _tie_weights(g, a, b):
    """Weight 1 where a wins, 0.5 at ties (as torch.maximum), 0 where it loses."""
    return _mask(g, (value(a) > value(b)) + 0.5 * (value(a) == value(b)))


@primitive("maximum", "max(x, y)", "g * [x > y]  (ties: g/2)", "g * [y > x]  (ties: g/2)")
def maximum(x, y):
    return np.maximum(x, y)


maximum.defvjp(
    lambda g, out, x, y: g * _tie_weights(g, x, y), lambda g, out, x, y: g * _tie_weights(g, y, x)
)


@primitive("minimum", "min(x, y)", "g * [x < y]  (ties: g/2)", "g * [y < x]  (ties: g/2)")
def minimum(x, y):
    return np.minimum(x, y)


minimum.defvjp(
    lambda g, out, x, y: g * _tie_weights(g, y, x), lambda g, out, x, y: g * _tie_weights(g, x, y)
)


@primitive("clip", "clip(x, min, max)", "g * [min <= x <= max]")
def clip(x, *, min=None, max=None):
    return np.clip(x, min, max)


def _clip_grad(g, out, x, *, min=None, max=None):
    inside = np.ones(x.shape, dtype=bool)
    if min is not None:
        inside &= value(x) >= min
    if max is not None:
        inside &= value(x) <= max
    return g * _mask(g, inside)


clip.defvjp(_clip_grad)


@primitive("where", "cond ? x : y", "g where cond, else 0", "g where not cond, else 0", saves=False)
def where(x, y, *, cond):
    return np.where(cond, x, y)


where.defvjp(
    lambda g, out, x, y, *, cond: where(g, 0.0, cond=cond),
    lambda g, out, x, y, *, cond: where(0.0, g, cond=cond),
)


@primitive("cast", "x.astype(dtype)", "g (cast back to x's dtype)", saves=False)
def cast(x, *, dtype):
    return x.astype(dtype)


cast.defvjp(lambda g, out, x, *, dtype: g)
