"""tg.jit, as much of `torch.jit` as runs without TorchScript: the decorators programs put on
methods (`@torch.jit.ignore`, `@torch.jit.unused`, `@torch.jit.export`), `is_scripting()` and
`is_tracing()` (False: tapegrad runs Python as written), `annotate`, `Final`; `script` and `trace`
return what they are given, unchanged (it runs eagerly, with the same results); saving or loading
a TorchScript file is a clear error (tapegrad has no compiled graph: use tg.save / tg.load).

Layer L0: standard library only.
"""

from __future__ import annotations

from typing import Any, Callable, Final, TypeVar

__all__ = [
    "script",
    "trace",
    "ignore",
    "unused",
    "export",
    "is_scripting",
    "is_tracing",
    "annotate",
    "Final",
    "save",
    "load",
]

Fn = TypeVar("Fn", bound=Callable[..., Any])


def script(
    obj: Any,
    optimize: Any = None,
    _frames_up: int = 0,
    _rcb: Any = None,
    example_inputs: Any = None,
) -> Any:
    """`obj` (a module or function) unchanged: tapegrad compiles no TorchScript, so it runs eagerly
    with the same results (a ScriptModule's graph, code and save are not there).

    >>> f = lambda x: x * 2; tg.jit.script(f) is f
    True
    """
    return obj


def trace(func: Any, example_inputs: Any = None, *args: Any, **kwargs: Any) -> Any:
    """`func` (a module or function) unchanged: tapegrad records no trace, so it runs eagerly
    (for every input, not only the example's path) with the same results.

    >>> f = lambda x: x * 2; tg.jit.trace(f, (tg.ones(2),)) is f
    True
    """
    return func


def ignore(drop: Any = False, **kwargs: Any) -> Any:
    """A decorator (`@ignore` or `@ignore(drop=True)`) leaving the function as it is: it runs in
    Python, as every function does in tapegrad.

    >>> @tg.jit.ignore
    ... def f(x): return x
    >>> f(1)
    1
    """
    if callable(drop):
        return drop
    return lambda fn: fn


def unused(fn: Fn) -> Fn:
    """A decorator leaving the function as it is (TorchScript would skip compiling it).

    >>> tg.jit.unused(abs)(-1)
    1
    """
    return fn


def export(fn: Fn) -> Fn:
    """A decorator leaving the method as it is (TorchScript would compile it as an entry point).

    >>> tg.jit.export(abs)(-1)
    1
    """
    return fn


def is_scripting() -> bool:
    """False: tapegrad never runs code as TorchScript.

    >>> tg.jit.is_scripting()
    False
    """
    return False


def is_tracing() -> bool:
    """False: tapegrad never traces.

    >>> tg.jit.is_tracing()
    False
    """
    return False


def annotate(the_type: Any, the_value: Any) -> Any:
    """`the_value` (the type is a hint for TorchScript's compiler).

    >>> tg.jit.annotate(list, [])
    []
    """
    return the_value


def _no_torchscript(what: str) -> RuntimeError:
    return RuntimeError(
        f"tg.jit.{what}: tapegrad has no TorchScript (tg.jit.script/trace return the module as "
        f"it is); save the weights with tg.save(model.state_dict(), path) and load them with "
        f"model.load_state_dict(tg.load(path))"
    )


def save(m: Any, f: Any, _extra_files: Any = None) -> None:
    """Refused: there is no TorchScript program to save (use tg.save on the state_dict).

    >>> tg.jit.save  # doctest: +ELLIPSIS
    <function save at ...>
    """
    raise _no_torchscript("save")


def load(f: Any, map_location: Any = None, _extra_files: Any = None) -> Any:
    """Refused: tapegrad cannot run a TorchScript file (load a state_dict with tg.load).

    >>> tg.jit.load  # doctest: +ELLIPSIS
    <function load at ...>
    """
    raise _no_torchscript("load")
