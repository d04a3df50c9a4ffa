"""The bad-input catalogue: every error listed in docs/errors.md, triggered and checked.

Each case is a tiny function that makes one mistake, the exception type it must raise (exactly that
type, not a subclass or a parent), and a regex for a telling part of the message. One parametrized
test goes over all of them; `test_catalogue_matches_docs` keeps this list and docs/errors.md in sync
(same ids, same exception types), so a new error path needs both a doc entry and a case here.

A case for an error path of the core (tensor.py, primitives/, creation.py, ...) that is missing or
unclear states the behaviour a user should get, and fails until the core does it (docs/errors.md
marks such entries "Core problem").
"""

from __future__ import annotations

import re
import sys
import tempfile
import types
from contextlib import contextmanager
from pathlib import Path
from typing import Callable, NamedTuple
from unittest import mock

import numpy as np
import pytest

import tapegrad as tg
from helpers import Double

DOC = Path(__file__).resolve().parent.parent / "docs" / "errors.md"


class Case(NamedTuple):
    id: str
    fn: Callable[[], object]
    exc: type
    pattern: str


CASES: list[Case] = []


def case(id: str, exc: type, pattern: str) -> Callable:
    """Register the decorated function as catalogue case `id`."""

    def register(fn: Callable) -> Callable:
        CASES.append(Case(id, fn, exc, pattern))
        return fn

    return register


def x3() -> tg.Tensor:
    return tg.tensor([1.0, 2.0, 3.0], requires_grad=True)


# ---- tensors: creation, dtypes, conversions ------------------------------------------------------
@case(
    "int-requires-grad",
    TypeError,
    r"only floating-point tensors can require gradients.*int64.*"
    r"dtype=tg\.float32",
)
def _():
    tg.tensor([1, 2], requires_grad=True)


@case("int-requires-grad-later", TypeError, r"only floating-point tensors can require gradients")
def _():
    tg.arange(3).requires_grad_()


@case("unknown-dtype", TypeError, r"unknown dtype 'float128'; use one of tg\.float16")
def _():
    tg.tensor([1.0], dtype="float128")


@case("bad-data", TypeError, r"cannot make a tensor from a str \('abc'\); pass numbers")
def _():
    tg.tensor("abc")


@case("factory-bad-size", RuntimeError, r"arange step must be nonzero \(as PyTorch\)")
def _():
    tg.arange(0, 5, 0)


@case(
    "ragged-data",
    ValueError,
    r"cannot make a tensor from this data \(\[\[1\.0, 2\.0\], \[3\.0\]\]\)",
)
def _():
    tg.tensor([[1.0, 2.0], [3.0]])


@case("dict-data", TypeError, r"cannot make a tensor from a dict")
def _():
    tg.tensor({"a": 1.0})


@case(
    "random-integer-dtype",
    TypeError,
    r"randn samples real numbers: dtype must be a float dtype.*"
    r"got int32; use tg\.randint",
)
def _():
    tg.randn(3, dtype=tg.int32)


@case("device-not-cpu", RuntimeError, r"zeros: device 'cuda' is not available.*on the CPU")
def _():
    tg.zeros(2, 3, device="cuda")


@case("manual-seed-not-int", TypeError, r"manual_seed expects an int, got str 'a'")
def _():
    tg.manual_seed("a")


@case("unsupported-operand", TypeError, r"unsupported operand type for a tensor op: str")
def _():
    tg.ones(2) + "a"


@case(
    "item-non-scalar",
    ValueError,
    r"item\(\) needs a tensor with exactly one element.*\[2, 2\].*"
    r"\.tolist\(\)",
)
def _():
    tg.ones(2, 2).item()


@case(
    "bool-ambiguous",
    RuntimeError,
    r"truth value of a tensor with 2 elements is ambiguous; use "
    r"\.any\(\) or \.all\(\)",
)
def _():
    bool(tg.ones(2))


@case("mean-of-integers", TypeError, r"mean needs a floating-point tensor, got int64; use \.astype")
def _():
    tg.tensor([1, 2]).mean()


@case(
    "grad-assign-wrong-shape",
    RuntimeError,
    r"assigned grad has shape \[2\], but the tensor has "
    r"shape \[3\]",
)
def _():
    x3().grad = tg.zeros(2)


@case(
    "requires-grad-non-leaf",
    RuntimeError,
    r"only change requires_grad of leaf tensors.*MulBackward"
    r".*\.detach\(\)",
)
def _():
    (x3() * 2).requires_grad = False


# ---- shapes and axes -----------------------------------------------------------------------------
@case("matmul-mismatch", tg.ShapeError, r"matmul: shapes \[2, 3\] and \[2, 3\] are not aligned")
def _():
    tg.ones(2, 3) @ tg.ones(2, 3)


@case(
    "matmul-batch-mismatch",
    tg.ShapeError,
    r"matmul: shapes \[2, 2, 3\] and \[3, 3, 4\]: the batch axes "
    r"\[2\] and \[3\] do not broadcast",
)
def _():
    tg.ones(2, 2, 3) @ tg.ones(3, 3, 4)


@case("broadcast-mismatch", tg.ShapeError, r"^add: .*broadcast.*\(2, ?3\).*\(4,?\)")
def _():
    tg.ones(2, 3) + tg.ones(4)


@case("bool-subtraction", RuntimeError, r"subtraction of bools is not supported.*~mask")
def _():
    1 - tg.tensor([True, False])


@case(
    "reshape-mismatch",
    tg.ShapeError,
    r"cannot reshape a tensor of shape \[2, 3\] \(6 elements\) into "
    r"\[4, 2\]",
)
def _():
    tg.ones(2, 3).reshape(4, 2)


@case("reshape-non-int", TypeError, r"a shape is made of ints, got 2\.5 in \(2\.5, 2\)")
def _():
    tg.ones(4).reshape(2.5, 2)


@case(
    "expand-mismatch",
    tg.ShapeError,
    r"cannot expand a tensor of shape \[3\] to \[4, 2\]: only axes of "
    r"size 1 can grow",
)
def _():
    tg.ones(3).expand(4, 2)


@case(
    "expand-keep-new-axis",
    tg.ShapeError,
    r"cannot expand a tensor of shape \[3, 4\] to \[-1, 3, 4\]: -1 \(keep "
    r"the size\) is not allowed in a new leading axis \(0\)",
)
def _():
    tg.ones(3, 4).expand(-1, 3, 4)


@case("expand-too-few-sizes", tg.ShapeError, r"give at least one size per axis \(2\)")
def _():
    tg.ones(3, 4).expand(-1)


@case(
    "cat-mismatch",
    tg.ShapeError,
    r"concatenate: tensor 1 has shape \[2, 2\], but tensor 0 has shape "
    r"\[2, 3\]; all axes except axis 0 must match",
)
def _():
    tg.cat([tg.ones(2, 3), tg.ones(2, 2)])


@case("stack-mismatch", tg.ShapeError, r"stack: tensor 1 has shape \[3\].*equal shapes")
def _():
    tg.stack([tg.ones(2), tg.ones(3)])


@case(
    "axis-out-of-range",
    IndexError,
    r"axis 2 is out of range for a tensor with 2 dimension\(s\); "
    r"valid axes are -2\.\.1",
)
def _():
    tg.ones(2, 3).sum(axis=2)


@case("axis-not-int", TypeError, r"axis must be an int or a tuple of ints, got 0\.5")
def _():
    tg.ones(2, 3).sum(axis=0.5)


@case(
    "chunk-axis-out-of-range", IndexError, r"axis 3 is out of range for a tensor with 1 dimension"
)
def _():
    tg.ones(2).chunk(2, axis=3)


@case(
    "flatten-dim-out-of-range", IndexError, r"axis 5 is out of range for a tensor with 2 dimension"
)
def _():
    tg.ones(2, 3).flatten(0, 5)


@case("index-out-of-range", IndexError, r"index 5 is out of bounds for axis 0 with size 2")
def _():
    tg.ones(2, 3)[5]


@case("permute-invalid", tg.ShapeError, r"permute: \[0, 0\] is not a permutation of the 2 axes")
def _():
    tg.ones(2, 3).permute(0, 0)


@case("split-sizes", tg.ShapeError, r"split sizes \[2, 2\] do not add up to the axis length 5")
def _():
    tg.ones(5).split([2, 2])


@case(
    "inplace-shape-mismatch",
    RuntimeError,
    r"in-place \+=: the result has shape \[2, 3\], which does "
    r"not match the tensor's shape \[3\]",
)
def _():
    y = x3() * 1
    y += tg.ones(2, 3)


@case(
    "inplace-shape-mismatch-untracked",
    RuntimeError,
    r"in-place \+=: the result has shape \[2, 3\], "
    r"which does not match the tensor's shape \[3\]",
)
def _():
    y = tg.ones(3)
    y += tg.ones(2, 3)


@case(
    "setitem-shape-mismatch",
    tg.ShapeError,
    r"__setitem__: could not broadcast input array from shape "
    r"\(3,\) into shape \(2,\)",
)
def _():
    y = tg.ones(3)
    y[0:2] = tg.ones(3)


@case(
    "copy-shape-mismatch",
    tg.ShapeError,
    r"copy_: could not broadcast input array from shape \(4,\) "
    r"into shape \(3,\)",
)
def _():
    y = tg.ones(3)
    y.copy_(tg.ones(4))


# ---- engine: backward and tg.autograd.grad -------------------------------------------------------
@case(
    "non-scalar-backward",
    RuntimeError,
    r"implicitly created only for scalar outputs, but this tensor "
    r"has shape \[3\]; pass gradient",
)
def _():
    (x3() * 2).backward()


@case(
    "grad-tensors-shape",
    RuntimeError,
    r"mismatch in shape: grad_tensors has shape \[2\] but the "
    r"tensor has shape \[3\]",
)
def _():
    tg.autograd.backward(x3() * 2, grad_tensors=tg.ones(2))


@case(
    "grad-outputs-shape",
    RuntimeError,
    r"mismatch in shape: grad_outputs has shape \[2\] but the "
    r"output has shape \[3\]",
)
def _():
    x = x3()
    tg.autograd.grad(x * 2, x, grad_outputs=tg.ones(2))


@case(
    "grad-tensors-count",
    ValueError,
    r"grad_tensors has 1 entries but tensors has 2; give one "
    r"gradient per output",
)
def _():
    x = x3()
    tg.autograd.backward([x.sum(), (x * 2).sum()], grad_tensors=[None])


@case(
    "backward-twice",
    RuntimeError,
    r"backward through the graph a second time.*MulBackward.*"
    r"retain_graph=True",
)
def _():
    x = x3()
    y = (x * x).sum()
    y.backward()
    y.backward()


@case(
    "inplace-saved-tensor",
    RuntimeError,
    r"modified by an in-place operation: input 0 \(x\) of shape "
    r"\[3\], last modified in place by `\+=` of MulBackward is at "
    r"version 1; expected version 0\. Compute",
)
def _():
    x = x3()
    h = x * 1
    y = h * h
    h += 1
    y.sum().backward()


@case(
    "inplace-leaf",
    RuntimeError,
    r"leaf tensor that requires grad is used in an in-place operation "
    r"\(\+=\); do it inside `with tg\.no_grad\(\):`",
)
def _():
    x = x3()
    x += 1


@case(
    "inplace-view-of-leaf",
    RuntimeError,
    r"a view of a leaf tensor that requires grad is used in an "
    r"in-place operation \(\+=\); do it inside `with tg\.no_grad",
)
def _():
    x = x3()
    v = x[0:2]
    v += 1


@case(
    "inplace-expanded-view",
    RuntimeError,
    r"in-place \+= on a broadcast \(expanded\) view.*make a copy",
)
def _():
    x = x3() * 1.0
    v = x.expand(2, 3)
    v += 1


@case(
    "output-does-not-require-grad",
    RuntimeError,
    r"the output does not require grad and has no "
    r"grad_fn.*requires_grad=True",
)
def _():
    x = x3()
    tg.autograd.grad(x.detach().sum(), x)


@case(
    "output-left-the-tape",
    TypeError,
    r"the output is a float, not a tapegrad Tensor: its value left "
    r"the tape",
)
def _():
    x = x3()
    tg.autograd.grad(float((x * 2).sum()), x)


@case(
    "input-does-not-require-grad",
    RuntimeError,
    r"inputs\[0\] does not require grad.*"
    r"requires_grad=True",
)
def _():
    x = x3()
    tg.autograd.grad((x * 2).sum(), tg.ones(3))


@case(
    "unused-input",
    RuntimeError,
    r"inputs\[1\] \(shape \[\]\) was not used to compute the outputs.*"
    r"allow_unused=True",
)
def _():
    x, other = x3(), tg.tensor(1.0, requires_grad=True)
    tg.autograd.grad((x * 2).sum(), [x, other])


@case(
    "hook-wrong-shape",
    RuntimeError,
    r"hook <lambda> returned a gradient of shape \[\] for a tensor "
    r"of shape \[3\]",
)
def _():
    x = x3()
    x.register_hook(lambda g: g.sum())
    (x * 2).sum().backward()


@case(
    "hook-wrong-dtype",
    RuntimeError,
    r"hook <lambda> changed the gradient's dtype from float32 to "
    r"float64; return it in the same dtype",
)
def _():
    y = x3() * 2
    y.register_hook(lambda g: g.double())
    y.sum().backward()


@case(
    "hook-without-grad",
    RuntimeError,
    r"cannot register a hook on a tensor that does not require "
    r"grad; set requires_grad=True",
)
def _():
    tg.ones(2).register_hook(print)


@case(
    "retain-grad-without-grad",
    RuntimeError,
    r"can't retain_grad on a tensor that does not require "
    r"grad; create it with requires_grad=True",
)
def _():
    tg.ones(2).retain_grad()


@case(
    "anomaly-nan",
    RuntimeError,
    r"(?s)Function 'SqrtBackward' returned (nan|inf) values.*forward op was "
    r"created at",
)
def _():
    x = tg.tensor([0.0], requires_grad=True)
    with np.errstate(all="ignore"), tg.autograd.detect_anomaly():
        x.sqrt().sum().backward()


# ---- functional API ------------------------------------------------------------------------------
@case(
    "grad-position-out-of-range",
    ValueError,
    r"grad_position 2 is out of range: the function was "
    r"called with 2 positional argument\(s\), so valid "
    r"positions are 0\.\.1",
)
def _():
    tg.grad(lambda a, b: a * b, grad_position=2)(tg.tensor(1.0), tg.tensor(2.0))


@case(
    "grad-position-wrong-type",
    TypeError,
    r"grad_position must be an int, a tuple of ints or None, "
    r"got '0' \(str is not an int\)",
)
def _():
    tg.grad(lambda a: a, grad_position="0")


@case(
    "grad-position-and-weights-none",
    ValueError,
    r"`grad_position` and `weights` can not be None at "
    r"the same time",
)
def _():
    tg.grad(lambda a: a, grad_position=None, weights=None)


@case(
    "has-aux-single-output",
    ValueError,
    r"has_aux=True needs fn to return a tuple \(output, aux, "
    r"\.\.\.\).*returned a Tensor",
)
def _():
    tg.grad(lambda a: a * 2, has_aux=True)(tg.tensor(1.0))


@case(
    "weights-without-grad", ValueError, r"weights\[0\] does not require grad.*trainable_params\(\)"
)
def _():
    w = tg.nn.Parameter(tg.ones(2), requires_grad=False)
    tg.grad(lambda a: (a * w).sum(), grad_position=None, weights=[w])


@case(
    "weights-not-tensors",
    TypeError,
    r"weights\[0\] is a ndarray, not a Parameter/Tensor; pass "
    r"net\.trainable_params\(\)",
)
def _():
    tg.grad(lambda a: a, grad_position=None, weights=[np.ones(2)])


@case(
    "fn-returns-numpy",
    TypeError,
    r"fn's result is a float32, not a tapegrad Tensor: its value left "
    r"the tape.*will not return a silent zero",
)
def _():
    tg.grad(lambda a: (a * a).numpy().sum())(tg.tensor([1.0, 2.0]))


@case(
    "fn-returns-float",
    TypeError,
    r"fn's result is a float, not a tapegrad Tensor: its value left "
    r"the tape",
)
def _():
    tg.grad(lambda a: float((a * a).sum()))(tg.tensor([1.0, 2.0]))


@case(
    "fn-returns-none",
    TypeError,
    r"fn's result is a NoneType, not a tapegrad Tensor: return the "
    r"value to differentiate",
)
def _():
    tg.grad(lambda a: None)(tg.tensor([1.0, 2.0]))


@case(
    "grad-of-integer-input",
    TypeError,
    r"argument 0 \(grad_position\) is a tensor of dtype int64; "
    r"only floating-point inputs can be differentiated",
)
def _():
    tg.grad(lambda a: a * 2)(tg.tensor([1, 2]))


@case(
    "vjp-cotangent-shape", ValueError, r"cotangent 0 has shape \[2\] but output 0 has shape \[3\]"
)
def _():
    _, vjp_fn = tg.vjp(lambda a: a * 2, tg.ones(3))
    vjp_fn(tg.ones(2))


@case(
    "jvp-tangent-shape",
    ValueError,
    r"tangents\[0\] has shape \[2\] but inputs\[0\] has shape \[3\]",
)
def _():
    tg.jvp(lambda a: a * 2, (tg.ones(3),), (tg.ones(2),))


@case(
    "gradient-tape-used-twice",
    RuntimeError,
    r"non-persistent GradientTape can only be used to "
    r"compute one set of gradients.*persistent=True",
)
def _():
    a = tg.tensor(3.0)
    with tg.GradientTape() as tape:
        tape.watch(a)
        y = a * a
    tape.gradient(y, a)
    tape.gradient(y, a)


@case("gradient-tape-target-left-the-tape", TypeError, r"target is a float, not a tapegrad Tensor")
def _():
    a = tg.tensor(3.0)
    with tg.GradientTape() as tape:
        tape.watch(a)
        y = float(a * a)
    tape.gradient(y, a)


# ---- nn, optim, amp ------------------------------------------------------------------------------
@case("parameter-from-int", TypeError, r"a Parameter needs floating-point data, got dtype int64")
def _():
    tg.nn.Parameter([1, 2, 3])


@case(
    "load-state-dict-missing",
    RuntimeError,
    r"missing keys \['bias'\], unexpected keys \[\].*"
    r"strict=False",
)
def _():
    net = tg.nn.Linear(2, 1)
    state = net.state_dict()
    del state["bias"]
    net.load_state_dict(state)


@case("load-state-dict-unexpected", RuntimeError, r"missing keys \[\], unexpected keys \['extra'\]")
def _():
    net = tg.nn.Linear(2, 1)
    state = net.state_dict()
    state["extra"] = tg.ones(1)
    net.load_state_dict(state)


@case(
    "load-state-dict-shape",
    RuntimeError,
    r"size mismatch for weight: the checkpoint has shape "
    r"\(1, 3\), the model has shape \(1, 2\); build the model",
)
def _():
    tg.nn.Linear(2, 1).load_state_dict(tg.nn.Linear(3, 1).state_dict())


@case(
    "load-state-dict-not-a-dict",
    TypeError,
    r"load_state_dict expects a dict \{name: tensor\}.*got "
    r"list",
)
def _():
    tg.nn.Linear(2, 1).load_state_dict([1, 2])


@case(
    "set-data-shape",
    ValueError,
    r"set_data: the new data has shape \(3,\) but parameter \(unnamed\) "
    r"has shape \(2,\)",
)
def _():
    tg.nn.Parameter(tg.ones(2)).set_data(tg.ones(3))


@case(
    "dense-input-size",
    ValueError,
    r"Linear expects inputs whose last axis has size 3 \(its in_features\), got shape "
    r"\(4, 2\); reshape the input or build the layer with in_features=2",
)
def _():
    tg.nn.Linear(3, 2)(tg.ones(4, 2))


@case(
    "module-without-super-init",
    RuntimeError,
    r"cannot assign Parameter 'w' before "
    r"Module\.__init__\(\) ran; call super\(\)\.__init__\(\)",
)
def _():
    class Net(tg.nn.Module):
        def __init__(self):
            self.w = tg.nn.Parameter(tg.ones(2))

    Net()


@case(
    "module-without-forward",
    NotImplementedError,
    r"Module defines neither forward\(\) nor "
    r"construct\(\)",
)
def _():
    tg.nn.Module()(tg.ones(2))


@case(
    "assign-tensor-to-parameter",
    TypeError,
    r"cannot assign a Tensor to parameter 'weight'.*"
    r"set_data",
)
def _():
    net = tg.nn.Linear(2, 1)
    net.weight = tg.ones(1, 2)


@case(
    "mse-target-shape",
    tg.ShapeError,
    r"mse_loss: target shape \(4,\) does not broadcast against input "
    r"shape \(2, 3\)",
)
def _():
    tg.nn.MSELoss()(tg.ones(2, 3), tg.ones(4))


@case(
    "cross-entropy-class-range",
    IndexError,
    r"class index 3 is out of range for 3 classes "
    r"\(valid: 0\.\.2; or set ignore_index to skip it\)",
)
def _():
    tg.nn.CrossEntropyLoss()(tg.ones(2, 3), tg.tensor([0, 3]))


@case("optimizer-bad-lr", ValueError, r"invalid lr: -0\.1 \(it must be >= 0\.0\)")
def _():
    tg.optim.SGD(tg.nn.Linear(2, 1).parameters(), lr=-0.1)


@case("optimizer-lr-not-a-number", TypeError, r"lr must be a number, got 'fast' \(str\)")
def _():
    tg.optim.SGD(tg.nn.Linear(2, 1).parameters(), lr="fast")


@case(
    "optimizer-wrong-number-of-grads",
    ValueError,
    r"step\(\) got 1 gradients for 2 parameters; give "
    r"one per parameter",
)
def _():
    net = tg.nn.Linear(2, 1)
    tg.optim.SGD(net.parameters(), lr=0.1).step((tg.ones(1, 2),))


@case(
    "optimizer-grad-shape",
    ValueError,
    r"gradient 0 has shape \(2, 2\) but parameter 0 \(weight\) "
    r"has shape \(1, 2\)",
)
def _():
    net = tg.nn.Linear(2, 1)
    tg.optim.SGD(net.parameters(), lr=0.1).step((tg.ones(2, 2), tg.ones(1)))


@case(
    "optimizer-empty-params", ValueError, r"SGD got an empty parameter list.*used up after one pass"
)
def _():
    params = tg.nn.Linear(2, 1).parameters()
    list(params)  # the generator is used up here
    tg.optim.SGD(params, lr=0.1)


@case(
    "optimizer-non-leaf",
    ValueError,
    r"parameter 0 must be a floating-point leaf tensor.*computed "
    r"tensor",
)
def _():
    tg.optim.SGD([x3() * 2], lr=0.1)


@case("loss-scale-not-positive", ValueError, r"scale_value must be a positive number, got 0")
def _():
    tg.amp.StaticLossScaler(0)


@case("clip-non-tensors", TypeError, r"clip_by_global_norm expects Tensors")
def _():
    tg.amp.clip_by_global_norm((np.ones(2),))


# ---- teaching tools ------------------------------------------------------------------------------
@contextmanager
def _module_as(name: str, module: object):
    """sys.modules[name] is `module` inside the block (None makes `import name` fail)."""
    missing = object()
    saved = sys.modules.get(name, missing)
    sys.modules[name] = module
    try:
        yield
    finally:
        if saved is missing:
            del sys.modules[name]
        else:
            sys.modules[name] = saved


def _graph() -> tg.Tensor:
    return (x3() * 2).sum()


@case(
    "draw-without-graphviz-package",
    tg.viz.GraphvizNotAvailable,
    r"needs the `graphviz` Python "
    r"package.*pip install",
)
def _():
    with _module_as("graphviz", None):
        tg.viz.draw(_graph(), Path(tempfile.gettempdir()) / "tapegrad-catalogue" / "g.svg")


@case(
    "draw-without-dot",
    tg.viz.GraphvizNotAvailable,
    r"needs the Graphviz `dot` program.*apt-get "
    r"install graphviz",
)
def _():
    with (
        _module_as("graphviz", types.ModuleType("graphviz")),
        mock.patch.object(tg.viz.shutil, "which", return_value=None),
    ):
        tg.viz.draw(_graph(), Path(tempfile.gettempdir()) / "tapegrad-catalogue" / "g.svg")


@case(
    "draw-unknown-format", ValueError, r"cannot tell the image format from .*g\.txt.*\.svg or \.png"
)
def _():
    tg.viz.draw(_graph(), Path(tempfile.gettempdir()) / "g.txt")


@case("to-dot-not-a-tensor", TypeError, r"to_dot expects a tapegrad Tensor, got ndarray")
def _():
    tg.viz.to_dot(np.ones(2))


@case(
    "explain-non-scalar",
    RuntimeError,
    r"implicitly created only for scalar outputs, but the tensor "
    r"has shape \[3\]; pass gradient",
)
def _():
    tg.explain(x3() * 2, show=False)


@case(
    "formula-unknown-op",
    KeyError,
    r"no primitive or function named 'sinn'\. Did you mean 'sin'.*"
    r"tg\.autograd\.rules\(\)",
)
def _():
    tg.autograd.formula("sinn")


@case(
    "formula-not-a-string",
    TypeError,
    r"an op is named by a str \(e\.g\. \"sin\" or \"SinBackward\"\), "
    r"got 3",
)
def _():
    tg.autograd.formula(3)


def _small_loss() -> tuple:
    w1 = tg.tensor(np.ones((4, 3)), requires_grad=True, name="W1")
    w2 = tg.tensor(np.ones((2, 4)), requires_grad=True, name="W2")
    b1 = tg.tensor(np.zeros(4), requires_grad=True, name="b1")
    h = tg.nn.functional.linear(tg.ones(5, 3, dtype=tg.float64), w1, b1).tanh()
    h.name = "h"
    return tg.nn.functional.cross_entropy(h @ w2.T, tg.tensor([0, 1, 1, 0, 1])), w1


@case(
    "explain-expand-unknown",
    ValueError,
    r"expand: no composite function named \['cross_entropie'\]; the calls on this graph: "
    r"cross_entropy, log_softmax \(expand=True",
)
def _():
    tg.explain(_small_loss()[0], show=False, expand=["cross_entropie"])


@case(
    "compare-name-not-found",
    ValueError,
    r"compare: no tensor named 'W3' on the graph of the loss \(named ones: W1, W2, b1, h\)",
)
def _():
    tg.autograd.compare(_small_loss()[0], {"W3": np.zeros(3)})


@case(
    "compare-shape-mismatch",
    ValueError,
    r"gradient given for W1 has shape \(3, 4\), but W1 has shape \(4, 3\)",
)
def _():
    loss, w1 = _small_loss()
    tg.autograd.compare(loss, {w1: np.zeros((3, 4))})


@case("compare-not-on-graph", ValueError, r"compare: stray is not on the graph of the loss")
def _():
    stray = tg.tensor([1.0], requires_grad=True, name="stray")
    tg.autograd.compare(_small_loss()[0], {stray: 0.0})


# ---- custom Functions ----------------------------------------------------------------------------
class TwoInputsOneGrad(tg.autograd.Function):
    @staticmethod
    def forward(ctx, a, b):
        return a * b

    @staticmethod
    def backward(ctx, g):
        return g  # one gradient for two inputs


class SummedGrad(tg.autograd.Function):
    @staticmethod
    def forward(ctx, a):
        return a * 2

    @staticmethod
    def backward(ctx, g):
        return g.sum()  # shape [] for an input of shape [3]


class ReturnsNothing(tg.autograd.Function):
    @staticmethod
    def forward(ctx, a):
        ctx.value = a * 2  # forgot the return

    @staticmethod
    def backward(ctx, g):
        return g


class IntegerOutput(tg.autograd.Function):
    @staticmethod
    def forward(ctx, a):
        return np.array([1, 2, 3])

    @staticmethod
    def backward(ctx, g):
        return g


class NoBackward(tg.autograd.Function):
    @staticmethod
    def forward(ctx, a):
        return a * 2


class SavesANumber(tg.autograd.Function):
    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(3.0)
        return a

    @staticmethod
    def backward(ctx, g):
        return g


class WrongBackward(tg.autograd.Function):
    @staticmethod
    def forward(ctx, a):
        return a * 2

    @staticmethod
    def backward(ctx, g):
        return g * 3  # the derivative is 2


@case(
    "function-wrong-number-of-grads",
    RuntimeError,
    r"TwoInputsOneGrad\.backward returned 1 "
    r"gradient\(s\), but forward took 2 input\(s\)",
)
def _():
    TwoInputsOneGrad.apply(x3(), x3()).sum().backward()


@case(
    "function-wrong-grad-shape",
    RuntimeError,
    r"SummedGrad\.backward returned a gradient of shape "
    r"\[\] for input 0, which has shape \[3\]",
)
def _():
    SummedGrad.apply(x3()).sum().backward()


class TwoOutputsOneGrad(tg.autograd.Function):
    @staticmethod
    def forward(ctx, a):
        return a * 1, a * 2

    @staticmethod
    def backward(ctx, g):
        return g


@case(
    "function-backward-arity",
    TypeError,
    r"TwoOutputsOneGrad\.backward cannot take 2 gradient\(s\): "
    r"forward returned 2 output\(s\)",
)
def _():
    a, b = TwoOutputsOneGrad.apply(x3())
    (a + b).sum().backward()


@case(
    "function-returns-none",
    TypeError,
    r"ReturnsNothing\.forward returned None; it must return the "
    r"output tensor",
)
def _():
    ReturnsNothing.apply(x3())


@case(
    "function-integer-output",
    TypeError,
    r"IntegerOutput\.forward returned dtype int64; a "
    r"differentiable Function must return a floating-point",
)
def _():
    IntegerOutput.apply(x3())


@case(
    "function-backward-twice",
    RuntimeError,
    r"saved tensors of DoubleBackward were freed by a previous "
    r"backward; pass retain_graph=True",
)
def _():
    y = Double.apply(x3()).sum()
    y.backward()
    y.backward()


@case(
    "function-saved-tensor-modified",
    RuntimeError,
    r"saved tensor 0 of DoubleBackward is at version "
    r"1; expected version 0\. Compute the in-place "
    r"change on a copy",
)
def _():
    h = x3() * 1
    y = Double.apply(h).sum()
    h += 1
    y.backward()


@case(
    "function-without-backward",
    NotImplementedError,
    r"a Function subclass must define "
    r"backward\(ctx, \*grads\)",
)
def _():
    NoBackward.apply(x3()).sum().backward()


@case(
    "save-for-backward-non-tensor",
    TypeError,
    r"save_for_backward takes tensors \(or None\), got "
    r"float; store other values as attributes of ctx",
)
def _():
    SavesANumber.apply(x3())


@case(
    "gradcheck-mismatch",
    tg.autograd.GradcheckError,
    r"(?s)Jacobian mismatch for output 0 with respect "
    r"to input 0.*finite differences",
)
def _():
    tg.autograd.gradcheck(WrongBackward.apply, [tg.ones(2, dtype=tg.float64, requires_grad=True)])


# ---- the tests -----------------------------------------------------------------------------------
@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_error(case: Case) -> None:
    """The mistake raises exactly the documented exception type, with the documented message."""
    with pytest.raises(Exception) as info:
        case.fn()
    err = info.value
    assert type(err) is case.exc, (
        f"{case.id}: expected {case.exc.__name__}, got {type(err).__name__}: {err}"
    )
    assert re.search(case.pattern, str(err)), (
        f"{case.id}: message does not match {case.pattern!r}:\n{err}"
    )


_HEADING = re.compile(r"^### `([a-z0-9-]+)`\s*$")
_RAISES = re.compile(r"^Raises: `([A-Za-z_][A-Za-z0-9_]*)`")


def _documented() -> dict:
    """{case id: exception type name} from the `### \\`id\\`` entries of docs/errors.md."""
    found: dict = {}
    current = None
    for line in DOC.read_text(encoding="utf-8").splitlines():
        heading = _HEADING.match(line)
        if heading:
            current = heading.group(1)
            assert current not in found, f"docs/errors.md documents {current!r} twice"
            found[current] = None
            continue
        if line.startswith("#"):
            current = None
            continue
        raises = _RAISES.match(line)
        if raises and current is not None and found[current] is None:
            found[current] = raises.group(1)
    return found


def test_catalogue_matches_docs() -> None:
    """Every documented error has a case here and vice versa, with the same exception type."""
    ids = [c.id for c in CASES]
    assert len(ids) == len(set(ids)), "duplicate case ids"
    documented = _documented()
    assert len(documented) >= 80, "docs/errors.md lost its entries?"
    assert sorted(set(documented) - set(ids)) == [], (
        "documented in docs/errors.md but not tested here"
    )
    assert sorted(set(ids) - set(documented)) == [], "tested here but missing from docs/errors.md"
    undocumented_type = sorted(k for k, v in documented.items() if v is None)
    assert undocumented_type == [], "entries without a `Raises: `Type`` line"
    mismatched = {
        c.id: (documented[c.id], c.exc.__name__)
        for c in CASES
        if documented[c.id] != c.exc.__name__
    }
    assert mismatched == {}, "exception types differ between docs/errors.md and the cases"


# ---- every error path of the core, one test each (type and a telling part of the message) -----


@pytest.fixture
def x():
    return tg.tensor([1.0, 2.0, 3.0], requires_grad=True)


# ---- backward / grad -----------------------------------------------------------------------------
def test_non_scalar_backward_without_gradient(x):
    with pytest.raises(
        RuntimeError,
        match=r"only for scalar outputs.*this tensor has shape \[3\]"
        r".*pass gradient",
    ):
        (x * 2).backward()
    with pytest.raises(RuntimeError, match="scalar outputs.*pass grad_tensors"):
        tg.autograd.backward([x * 2])
    with pytest.raises(RuntimeError, match="scalar outputs.*grad_outputs"):
        tg.autograd.grad(x * 2, x)


def test_gradient_shape_mismatch(x):
    with pytest.raises(RuntimeError, match=r"mismatch in shape: gradient has shape \[2\].*\[3\]"):
        (x * 2).backward(tg.tensor([1.0, 1.0]))
    with pytest.raises(RuntimeError, match="mismatch in shape"):
        tg.autograd.grad(x * 2, x, grad_outputs=tg.ones(2, 3))


def test_wrong_number_of_gradients(x):
    with pytest.raises(ValueError, match="grad_outputs has 2 entries but outputs has 1"):
        tg.autograd.grad([x.sum()], x, grad_outputs=[None, None])


def test_backward_twice(x):
    y = (x.exp() * x).sum()
    y.backward()
    with pytest.raises(RuntimeError, match="second time.*retain_graph=True"):
        y.backward()


def test_backward_on_tensor_that_does_not_require_grad():
    with pytest.raises(RuntimeError, match="does not require grad"):
        tg.tensor(1.0).backward()
    with tg.no_grad():
        y = tg.tensor(1.0, requires_grad=True) * 2
    with pytest.raises(RuntimeError, match="no_grad"):
        y.backward()


def test_output_not_requiring_grad_in_autograd_grad(x):
    with pytest.raises(RuntimeError, match=r"outputs\[0\] does not require grad"):
        tg.autograd.grad([x.detach().sum()], x)
    with pytest.raises(RuntimeError, match=r"the output does not require grad.*no_grad"):
        tg.autograd.grad(x.detach().sum(), x)


def test_output_that_left_the_tape(x):
    with pytest.raises(TypeError, match="the output is a float.*left the tape"):
        tg.autograd.grad(float((x * 2).sum().item()), x)
    with pytest.raises(TypeError, match="not a tapegrad Tensor"):
        tg.autograd.grad(np.sum((x * 2).numpy()), x)


def test_input_not_requiring_grad(x):
    with pytest.raises(
        RuntimeError, match=r"inputs\[0\] does not require grad.*requires_grad=True"
    ):
        tg.autograd.grad((x * 2).sum(), tg.tensor(1.0))
    with pytest.raises(TypeError, match=r"inputs\[0\] must be a Tensor"):
        tg.autograd.grad((x * 2).sum(), [np.ones(3)])
    with pytest.raises(ValueError, match="empty"):
        tg.autograd.grad((x * 2).sum(), [])


def test_input_unused(x):
    other = tg.tensor(1.0, requires_grad=True)
    with pytest.raises(RuntimeError, match=r"inputs\[1\].*not used.*allow_unused=True"):
        tg.autograd.grad((x * 2).sum(), [x, other])


# ---- requires_grad and in-place ------------------------------------------------------------------
@pytest.mark.parametrize(
    "make",
    [
        lambda: tg.tensor([1, 2], requires_grad=True),
        lambda: tg.tensor([True], requires_grad=True),
        lambda: tg.zeros(2, dtype=tg.int32, requires_grad=True),
        lambda: tg.tensor([1, 2]).requires_grad_(),
    ],
)
def test_integer_requires_grad(make):
    with pytest.raises(TypeError, match="only floating-point tensors can require gradients"):
        make()


@pytest.mark.parametrize(
    "op",
    [
        lambda t: t.__iadd__(1),
        lambda t: t.__imul__(2),
        lambda t: t.add_(1),
        lambda t: t.zero_(),
        lambda t: t.fill_(3),
        lambda t: t.__setitem__(0, 5.0),
        lambda t: t.copy_(tg.ones(3)),
    ],
)
def test_inplace_on_leaf_requiring_grad_outside_no_grad(x, op):
    with pytest.raises(RuntimeError, match="leaf tensor that requires grad.*in-place.*no_grad"):
        op(x)
    assert x.tolist() == [1.0, 2.0, 3.0]


def test_version_error(x):
    a = x * 2
    b = a.sin()
    a += 1
    with pytest.raises(
        RuntimeError,
        match=r"modified by an in-place operation.*SinBackward.*"
        r"version 1; expected version 0",
    ):
        b.sum().backward()


def test_requires_grad_false_on_non_leaf(x):
    with pytest.raises(RuntimeError, match="only change requires_grad of leaf tensors"):
        (x * 2).requires_grad = False


def test_register_hook_without_grad():
    with pytest.raises(RuntimeError, match="does not require grad"):
        tg.tensor([1.0]).register_hook(print)


def test_hook_changing_the_gradient_shape(x):
    x.register_hook(lambda g: g.sum())
    with pytest.raises(
        RuntimeError,
        match=r"hook <lambda> returned a gradient of shape \[\] for a "
        r"tensor of shape \[3\]",
    ):
        (x * 2).sum().backward()
    h = tg.tensor([1.0, 2.0], requires_grad=True) * 2
    h.register_hook(lambda g: tg.ones(5))
    with pytest.raises(RuntimeError, match=r"shape \[5\] for a tensor of shape \[2\]"):
        h.sum().backward()


def test_grad_assignment_of_wrong_shape_or_type(x):
    with pytest.raises(RuntimeError, match=r"assigned grad has shape \[2\].*\[3\]"):
        x.grad = tg.zeros(2)
    with pytest.raises(TypeError, match="Tensor or None"):
        x.grad = [0.0, 0.0, 0.0]


# ---- shapes --------------------------------------------------------------------------------------
def test_matmul_shape_mismatch():
    with pytest.raises(ValueError, match=r"matmul: shapes \[2, 3\] and \[2, 3\] are not aligned"):
        tg.ones(2, 3) @ tg.ones(2, 3)
    with pytest.raises(ValueError, match="not aligned"):
        tg.ones(3) @ tg.ones(4)
    with pytest.raises(ValueError, match="not aligned"):
        tg.ones(()) @ tg.ones(3)


def test_reshape_mismatch():
    with pytest.raises(
        ValueError, match=r"cannot reshape a tensor of shape \[2, 3\].*into \[4, 2\]"
    ):
        tg.ones(2, 3).reshape(4, 2)
    with pytest.raises(ValueError, match="only one dimension can be -1"):
        tg.ones(2, 3).reshape(-1, -1)
    with pytest.raises(ValueError, match="divide evenly"):
        tg.ones(2, 3).reshape(4, -1)


def test_expand_permute_split_and_axis_errors():
    with pytest.raises(ValueError, match=r"cannot expand a tensor of shape \[3\] to \[4, 2\]"):
        tg.ones(3).expand(4, 2)
    with pytest.raises(ValueError, match="not a permutation"):
        tg.ones(2, 3).permute(0, 0)
    with pytest.raises(ValueError, match="do not add up"):
        tg.ones(5).split([2, 2])
    with pytest.raises(IndexError, match="axis 2 is out of range.*2 dimension"):
        tg.ones(2, 3).sum(axis=2)
    with pytest.raises(ValueError, match="repeats an axis"):
        tg.ones(2, 3).sum(axis=(0, -2))


def test_concatenate_and_stack_errors():
    with pytest.raises(ValueError, match=r"tensor 1 has shape \[2, 2\].*all axes except axis 0"):
        tg.cat([tg.ones(2, 3), tg.ones(2, 2)])
    with pytest.raises(ValueError, match="zero-dimensional"):
        tg.cat([tg.tensor(1.0), tg.tensor(2.0)])
    with pytest.raises(ValueError, match="non-empty"):
        tg.stack([])
    with pytest.raises(ValueError, match="equal shapes"):
        tg.stack([tg.ones(2), tg.ones(3)])


def test_inplace_result_shape_mismatch(x):
    y = x * 1
    with pytest.raises(RuntimeError, match=r"result has shape \[2, 3\].*shape \[3\]"):
        y += tg.ones(2, 3)


# ---- dtypes and conversions ----------------------------------------------------------------------
@pytest.mark.parametrize("bad", ["float128x", "complex64", np.complex64, object, 3])
def test_unknown_dtype(bad):
    with pytest.raises(TypeError, match="unknown dtype.*tg.float32"):
        tg.tensor([1.0], dtype=bad)


def test_bad_data():
    with pytest.raises(TypeError, match="cannot make a tensor"):
        tg.tensor("abc")
    with pytest.raises(TypeError, match="unsupported operand"):
        tg.ones(2) + "a"


def test_item_on_non_scalar():
    with pytest.raises(
        ValueError, match=r"item\(\) needs a tensor with exactly one element.*\[2, 2\]"
    ):
        tg.ones(2, 2).item()


def test_truth_value_of_multi_element_tensor():
    with pytest.raises(RuntimeError, match="ambiguous"):
        bool(tg.ones(2))


def test_mean_of_integer_tensor_and_clip_without_bounds():
    with pytest.raises(TypeError, match="mean needs a floating-point tensor"):
        tg.tensor([1, 2]).mean()
    with pytest.raises(ValueError, match="at least one of min and max"):
        tg.ones(2).clip()


def test_function_returning_several_outputs():
    class Two(tg.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            return a * 1, a * 2

        @staticmethod
        def backward(ctx, g):
            return g

    a, b = Two.apply(tg.ones(2, requires_grad=True))  # several outputs are fine (as PyTorch),
    with pytest.raises(
        TypeError,
        match=r"Two\.backward cannot take 2 gradient\(s\).*def backward"
        r"\(ctx, g0, g1\)",
    ):  # but backward gets one per output
        (a + b).sum().backward()


def test_save_for_backward_rejects_non_tensors():
    class SaveNumber(tg.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            ctx.save_for_backward(3.0)
            return a

        @staticmethod
        def backward(ctx, g):
            return g

    with pytest.raises(TypeError, match="save_for_backward takes tensors"):
        SaveNumber.apply(tg.ones(2, requires_grad=True))


def test_gradcheck_needs_an_input_requiring_grad():
    with pytest.raises(ValueError, match="requires_grad=True"):
        tg.autograd.gradcheck(lambda t: t * 2, [tg.ones(2, dtype=tg.float64)])


# ---- construction, shapes and axes: clear messages instead of NumPy's (or silent truncation) -----
def test_bad_construction_data():
    with pytest.raises(ValueError, match="cannot make a tensor from this data.*inhomogeneous"):
        tg.tensor([[1.0, 2.0], [3.0]])
    with pytest.raises(TypeError, match="cannot make a tensor from a dict"):
        tg.tensor({"a": 1.0})
    with pytest.raises(TypeError, match="randn samples real numbers.*int32"):
        tg.randn(3, dtype=tg.int32)
    with pytest.raises(TypeError, match="rand samples real numbers"):
        tg.rand(3, dtype=tg.int64)
    with pytest.raises(TypeError, match="manual_seed expects an int"):
        tg.manual_seed("a")


def test_ops_name_themselves_when_numpy_refuses():
    with pytest.raises(ValueError, match=r"^add: operands could not be broadcast.*\(2,3\) \(4,\)"):
        tg.ones(2, 3) + tg.ones(4)
    with pytest.raises(
        ValueError, match=r"^matmul: shapes \[2, 2, 3\] and \[3, 3, 4\]: the batch axes"
    ):
        tg.ones(2, 2, 3) @ tg.ones(3, 3, 4)


def test_shapes_and_axes_must_be_ints_in_range():
    with pytest.raises(TypeError, match="a shape is made of ints, got 2.5"):
        tg.ones(4).reshape(2.5, 2)
    with pytest.raises(TypeError, match="a shape is made of ints"):
        tg.zeros(2.0)
    with pytest.raises(TypeError, match="axis must be an int or a tuple of ints, got 0.5"):
        tg.ones(2, 3).sum(axis=0.5)
    with pytest.raises(IndexError, match="axis 3 is out of range"):
        tg.ones(2).chunk(2, axis=3)
    with pytest.raises(IndexError, match="axis 5 is out of range"):
        tg.ones(2, 3).flatten(0, 5)
    with pytest.raises(ValueError, match="start_dim 1 comes after end_dim 0"):
        tg.ones(2, 3).flatten(1, 0)


def test_untracked_inplace_shape_errors():
    y = tg.ones(3)
    with pytest.raises(RuntimeError, match=r"in-place \+=: the result has shape \[2, 3\].*\[3\]"):
        y += tg.ones(2, 3)
    with pytest.raises(RuntimeError, match=r"in-place \*=: the result has shape \[1, 3\]"):
        y *= tg.ones(1, 3)
    with pytest.raises(ValueError, match=r"__setitem__: could not broadcast.*\(3,\).*\(2,\)"):
        y[0:2] = tg.ones(3)
    with pytest.raises(ValueError, match=r"copy_: could not broadcast.*\(4,\).*\(3,\)"):
        y.copy_(tg.ones(4))
    assert y.tolist() == [1.0, 1.0, 1.0]


def test_retain_grad_and_formula_errors():
    with pytest.raises(RuntimeError, match="retain_grad.*requires_grad=True"):
        tg.ones(2).retain_grad()
    with pytest.raises(TypeError, match="an op is named by a str"):
        tg.autograd.formula(3)


def test_function_forward_returning_none_and_saved_tensor_advice():
    class ReturnsNothing(tg.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            pass

        @staticmethod
        def backward(ctx, g):
            return g

    with pytest.raises(TypeError, match="ReturnsNothing.forward returned None"):
        ReturnsNothing.apply(tg.ones(2, requires_grad=True))

    h = tg.ones(2, requires_grad=True) * 1
    y = Double.apply(h).sum()
    h += 1
    with pytest.raises(
        RuntimeError,
        match="saved tensor 0 of DoubleBackward is at version 1; expected version 0.*out of place",
    ):
        y.backward()


def test_factories_refuse_negative_sizes_clearly():
    with pytest.raises(RuntimeError, match="negative size"):  # (PyTorch's RuntimeError)
        tg.zeros(2, -1)
    with pytest.raises(RuntimeError, match="negative size"):
        tg.randn((-3,))
