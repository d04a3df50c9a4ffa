"""PyTorch's `*_copy` functions (`tg.permute_copy(x, dims)`, ...): a view op's result as a fresh
tensor that shares no memory with its input. Each is the view method followed by clone(), so it is
recorded as those two ops and its gradient is the view's.

Layer L4: the Tensor layer only.
"""

from __future__ import annotations

from typing import Any, Callable

from .tensor import Tensor
from .tensor.coerce import TensorLike, as_tensor

__all__ = [
    "alias_copy", "as_strided_copy", "diagonal_copy", "expand_copy", "permute_copy",
    "select_copy", "slice_copy", "split_copy", "split_with_sizes_copy", "squeeze_copy", "t_copy",
    "transpose_copy", "unbind_copy", "unfold_copy", "unsqueeze_copy", "view_copy",
]  # fmt: skip


def _copying(
    view: Callable[..., Any], name: str, example: str, shows: str
) -> Callable[..., Tensor | tuple[Tensor, ...]]:
    """`view`'s result (a tensor, or a tuple of them) cloned, as the function `name`; `example`
    and what it `shows` make its docstring's example."""

    def copied(input: TensorLike, *args: Any, **kwargs: Any) -> Tensor | tuple[Tensor, ...]:
        out = view(as_tensor(input), *args, **kwargs)
        return tuple(t.clone() for t in out) if isinstance(out, tuple | list) else out.clone()

    copied.__name__ = copied.__qualname__ = name
    copied.__doc__ = (
        f"{name}: what the view {view.__name__.strip('_')} gives, as a fresh tensor (no memory "
        f"shared with the input).\n\n    >>> {example}\n    {shows}\n    "
    )
    copied.__module__ = __name__
    return copied


def _slice(
    x: Tensor, dim: int = 0, start: int | None = None, end: int | None = None, step: int = 1
) -> Tensor:
    """x[..., start:end:step, ...] along dim (torch.slice's view)."""
    index: list[Any] = [slice(None)] * x.ndim
    index[dim] = slice(start, end, step)
    return x[tuple(index)]


def _alias(x: Tensor) -> Tensor:
    """x itself (torch.alias's view: the same memory)."""
    return x


_X = "tg.arange(6.0).reshape(2, 3)"
alias_copy = _copying(_alias, "alias_copy", "tg.alias_copy(tg.ones(2))", "tensor([1., 1.])")
as_strided_copy = _copying(
    Tensor.as_strided,
    "as_strided_copy",
    "tg.as_strided_copy(tg.arange(4.0), (2,), (2,))",
    "tensor([0., 2.])",
)
diagonal_copy = _copying(
    Tensor.diagonal, "diagonal_copy", f"tg.diagonal_copy({_X})", "tensor([0., 4.])"
)
expand_copy = _copying(
    Tensor.expand, "expand_copy", "tg.expand_copy(tg.ones(3), (2, 3)).shape", "(2, 3)"
)
permute_copy = _copying(
    Tensor.permute, "permute_copy", f"tg.permute_copy({_X}, (1, 0)).shape", "(3, 2)"
)
select_copy = _copying(
    Tensor.select, "select_copy", f"tg.select_copy({_X}, 1, -1)", "tensor([2., 5.])"
)
slice_copy = _copying(
    _slice, "slice_copy", f"tg.slice_copy({_X}, 1, 0, None, 2).tolist()", "[[0.0, 2.0], [3.0, 5.0]]"
)
split_copy = _copying(Tensor.split, "split_copy", f"len(tg.split_copy({_X}, 1))", "2")
split_with_sizes_copy = _copying(
    Tensor.split_with_sizes,
    "split_with_sizes_copy",
    f"[t.shape for t in tg.split_with_sizes_copy({_X}, [1, 2], 1)]",
    "[(2, 1), (2, 2)]",
)
squeeze_copy = _copying(
    Tensor.squeeze, "squeeze_copy", "tg.squeeze_copy(tg.ones(1, 2)).shape", "(2,)"
)
t_copy = _copying(Tensor.t, "t_copy", f"tg.t_copy({_X}).shape", "(3, 2)")
transpose_copy = _copying(
    Tensor.transpose, "transpose_copy", f"tg.transpose_copy({_X}, 0, 1).shape", "(3, 2)"
)
unbind_copy = _copying(
    Tensor.unbind, "unbind_copy", f"tg.unbind_copy({_X})[1]", "tensor([3., 4., 5.])"
)
unfold_copy = _copying(
    Tensor.unfold, "unfold_copy", "tg.unfold_copy(tg.arange(5.0), 0, 2, 1).shape", "(4, 2)"
)
unsqueeze_copy = _copying(
    Tensor.unsqueeze, "unsqueeze_copy", "tg.unsqueeze_copy(tg.ones(2), 0).shape", "(1, 2)"
)
view_copy = _copying(Tensor.view, "view_copy", f"tg.view_copy({_X}, (3, 2)).shape", "(3, 2)")
