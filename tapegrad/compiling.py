"""tg.compile, as `torch.compile` with nothing to compile: tapegrad runs Python and NumPy as
written, so the module or function comes back unchanged (the same results; no speed-up). It
takes torch.compile's keywords and works as `tg.compile(model)`, `@tg.compile` and
`@tg.compile(mode="max-autotune")`.

Layer L0: standard library only.
"""

from __future__ import annotations

from typing import Any, Callable

__all__ = ["compile"]


def compile(
    model: Callable[..., Any] | None = None,
    *,
    fullgraph: bool = False,
    dynamic: bool | None = None,
    backend: str | Callable[..., Any] | None = None,
    mode: str | None = None,
    options: dict[str, Any] | None = None,
    name: str | None = None,
    disable: bool = False,
    recompile_limit: int | None = None,
    isolate_recompiles: bool = False,
    shapes_spec: Any = None,
) -> Any:
    """`model` unchanged (nothing is compiled); without a model, a decorator doing the same.

    >>> net = tg.nn.Linear(2, 2); tg.compile(net, mode="reduce-overhead") is net
    True
    """
    if mode is not None and options is not None:
        raise RuntimeError(
            "Either mode or options can be specified, but both can't be specified at the same time."
        )
    if model is None:
        return lambda fn: fn
    if not callable(model):
        raise AssertionError(  # (PyTorch's type for it)
            f"A callable function is expected, but {type(model)} is provided."
        )
    return model
