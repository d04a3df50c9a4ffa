"""Tensor: a NumPy array plus what autodiff needs (requires_grad, grad, grad_fn, hooks, version).

Layer L3. The class is composed of its method rooms, one module per topic, each a mixin over the
storage base (base.py): elementwise.py (operators, exp, ...), transcendental.py (sinh, atan2, hypot,
logit, ...), floating.py (frexp, ldexp, nextafter), comparison.py (`<`, eq, all, sort), runs.py
(unique_consecutive), activations.py (hardshrink, prelu), bitwise.py (`&`, `<<`, logical_and),
reduction.py (sum, max, softmax, norm), statistics.py (var, std, cov, bincount), order_statistics.py
(median, quantile, cummax), shape.py (reshape, permute, flip), pieces.py (split, narrow,
tensor_split), strided.py (as_strided), indexing.py (`t[i]`, gather), scatter.py (scatter,
index_add), scatter_reduce.py (scatter_reduce, index_reduce), linalg.py (`@`, mm, diag), inplace.py
(`+=`, add_, `t[i] = v`; writing.py writes them), random.py (normal_), conversion.py (astype, numpy,
item), memory_kind.py (layout, is_sparse, pin_memory). What stays here is the class itself: its
constructor and the tape (backward, detach, clone, hooks). A new method goes into the room of its
topic.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from .._state import overrides, state
from ..primitives import elementwise as E
from ..tape.node import Node
from .base import DETACHED_IN_BACKWARD
from .activations import ActivationsMixin
from .bitwise import BitwiseMixin
from .comparison import ComparisonMixin
from .conversion import ConversionMixin
from .elementwise import ElementwiseMixin
from .factorizations import FactorizationsMixin
from .floating import FloatingMixin
from .grad import HookHandle, register_hook, register_post_accumulate_grad_hook, retain_grad
from .indexing import IndexingMixin
from .inplace import InplaceMixin
from .linalg import LinalgMixin
from .legacy_linalg import LegacyLinalgMixin
from .linear_systems import LinearSystemsMixin
from .python_callables import PythonCallablesMixin
from .memory_kind import MemoryKindMixin
from .order_statistics import OrderStatisticsMixin
from .pieces import PiecesMixin
from .random import RandomMixin
from .record import apply, use_tensor_class
from .reduction import ReductionMixin
from .runs import RunsMixin
from .scatter import ScatterMixin
from .scatter_reduce import ScatterReduceMixin
from .shape import ShapeMixin, check_memory_format
from .statistics import StatisticsMixin
from .strided import StridedMixin
from .transcendental import TranscendentalMixin

_new = object.__new__


# tg.autograd.backward, which Tensor.backward calls (the layer above: bound on first use)
_autograd_backward: Callable[..., None] | None = None


class Tensor(
    ElementwiseMixin,
    TranscendentalMixin,
    FloatingMixin,
    ComparisonMixin,
    RunsMixin,
    ActivationsMixin,
    BitwiseMixin,
    ReductionMixin,
    StatisticsMixin,
    OrderStatisticsMixin,
    ShapeMixin,
    PiecesMixin,
    StridedMixin,
    IndexingMixin,
    ScatterMixin,
    ScatterReduceMixin,
    LinalgMixin,
    LinearSystemsMixin,
    LegacyLinalgMixin,
    PythonCallablesMixin,
    FactorizationsMixin,
    InplaceMixin,
    RandomMixin,
    ConversionMixin,
    MemoryKindMixin,
):
    """An n-dimensional array that can record the ops applied to it, for reverse-mode autodiff.

    >>> x = tg.tensor([1.0, 2.0], requires_grad=True); (x * x).sum().backward(); x.grad
    tensor([2., 4.])
    """

    __slots__ = ()  # (the storage slots are in TensorBase)
    __hash__ = object.__hash__  # (by identity: defining __eq__ would drop it)

    @staticmethod
    def _make(data: np.ndarray, grad_fn: Node | None = None) -> Tensor:
        """The fast constructor: wraps `data` as it is."""
        t = _new(Tensor)
        t._data = data
        t._grad_fn = grad_fn
        t._requires_grad = grad_fn is not None
        t._vc = None
        return t

    # ---- the tape ------------------------------------------------------------------------------
    def backward(
        self,
        gradient: Any = None,
        retain_graph: bool | None = None,
        create_graph: bool = False,
        inputs: Any = None,
        trace: bool = False,
    ) -> None:
        """Accumulate d(self)/d(leaf) into every leaf's .grad (see tg.autograd.backward).

        >>> x = tg.tensor([3.0], requires_grad=True); (x * x).backward(); x.grad
        tensor([6.])
        """
        global _autograd_backward
        if _autograd_backward is None:  # the layer above, imported on first use (an import
            # statement runs the import machinery on every call: ~2 us a backward)
            from ..autograd import functions

            _autograd_backward = functions.backward

        _autograd_backward(
            self,
            gradient,
            retain_graph=retain_graph,
            create_graph=create_graph,
            inputs=inputs,
            trace=trace,
            _names=("this tensor", "gradient"),
        )

    def detach(self) -> Tensor:
        """The same values, cut from the tape (shares memory, hence the version counter too).

        >>> tg.tensor([1.0], requires_grad=True).detach().requires_grad
        False
        """
        t = Tensor._make(self._data)
        t._vc = self._version_counter()
        if overrides[0] and state.strict_backward and self._requires_grad:
            DETACHED_IN_BACKWARD[id(t)] = t  # (its values leaving the tape there: an error)
        return t

    def detach_(self) -> Tensor:
        """Cut this tensor from the tape, in place.

        >>> y = tg.tensor([1.0], requires_grad=True) * 2; y.detach_().grad_fn is None
        True
        """
        if self._grad_fn is not None:  # (the counter first: the node that kept this tensor as
            self._version_counter()  # its output sees a later in-place change)
        self._grad_fn = None
        self._requires_grad = False
        return self

    def clone(self, *, memory_format: Any = None) -> Tensor:
        """A copy that stays on the tape (the gradient flows back unchanged).

        >>> tg.tensor([1.0], requires_grad=True).clone()
        tensor([1.], grad_fn=<AddBackward>)
        """
        check_memory_format("clone", memory_format, self.ndim)
        zero = np.zeros((), self._data.dtype)
        if zero.dtype.kind == "f":  # x + (-0.0) is x for every x; x + 0.0 would turn -0.0 into 0.0
            zero = -zero
        return apply(E.add, self, zero)

    def register_hook(self, hook: Callable[[Tensor], Tensor | None]) -> HookHandle:
        """Call hook(grad) when this tensor's gradient is computed (it may return a replacement).

        >>> x = tg.tensor([1.0], requires_grad=True); h = x.register_hook(lambda g: g * 2)
        """
        return register_hook(self, hook)

    def register_post_accumulate_grad_hook(self, hook: Callable[[Tensor], None]) -> HookHandle:
        """Call hook(self) each time a backward has accumulated a gradient into this leaf's .grad
        (an optimizer step per parameter, say); not on a non-leaf.

        >>> w = tg.ones(2, requires_grad=True); h = w.register_post_accumulate_grad_hook(print)
        """
        return register_post_accumulate_grad_hook(self, hook)

    def retain_grad(self) -> None:
        """Keep .grad for this non-leaf tensor too (leaves always get it).

        >>> y = tg.tensor([1.0], requires_grad=True) * 2; y.retain_grad()
        """
        retain_grad(self)


use_tensor_class(Tensor)  # (record.py makes Tensors, and cannot import this module)
