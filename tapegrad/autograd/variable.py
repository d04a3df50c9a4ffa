"""PyTorch's legacy `Variable(data, requires_grad=False)`: old programs wrap tensors in it.

Layer L4: imports tensor.py only. Since PyTorch 0.4 a Variable is a Tensor; `Variable(t)` gives a
new leaf sharing t's memory, and `isinstance(x, Variable)` holds for every tensor.
"""

from __future__ import annotations

from typing import Any

from ..tensor import Tensor


class _VariableMeta(type):
    def __instancecheck__(cls, obj: Any) -> bool:
        return isinstance(obj, Tensor)


class Variable(metaclass=_VariableMeta):
    """A new leaf Tensor sharing `data`'s memory, requiring grad if asked (PyTorch's old wrapper).

    >>> x = tg.autograd.Variable(tg.ones(2), requires_grad=True); x.is_leaf, x.requires_grad
    (True, True)
    """

    def __new__(cls, data: Any, requires_grad: bool = False, volatile: bool = False) -> Any:
        if not isinstance(data, Tensor):
            raise TypeError(
                f"Variable data has to be a tensor, but got {type(data).__name__}; "
                f"wrap it first: Variable(tg.tensor(data))"
            )
        if not isinstance(requires_grad, bool):
            raise TypeError(f"requires_grad must be True or False, got {requires_grad!r}")
        leaf = data.detach()  # shares memory, off the tape: a new leaf, as PyTorch's Variable
        if requires_grad:
            leaf.requires_grad_(True)
        return leaf
