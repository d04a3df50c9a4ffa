"""Containers that register what they hold (PyTorch's semantics): ModuleDict, ParameterList and
ParameterDict (and the deprecated Container). (Sequential and ModuleList live next to Module,
in module.py.)

Layer L5: imports tensor.py and the nn package's module and parameter.
"""

from __future__ import annotations

import operator
import warnings
from typing import Any, Iterable, Iterator, Mapping

from ..tensor import Tensor
from .module import Module
from .parameter import Parameter


def _pairs(items: Any, owner: str) -> Iterator[tuple[Any, Any]]:
    """(key, value) from a mapping (in its order) or an iterable of pairs, as PyTorch's update()."""
    if isinstance(items, Mapping) or isinstance(items, Module) and hasattr(items, "items"):
        yield from items.items()
        return
    if not isinstance(items, Iterable) or isinstance(items, (str, Tensor)):
        raise TypeError(
            f"{owner}.update should be called with a mapping or an iterable of key/value pairs, "
            f"but got {type(items).__name__}"
        )
    for j, pair in enumerate(items):
        if not isinstance(pair, Iterable) or isinstance(pair, (str, Tensor)):
            raise TypeError(
                f"{owner} update sequence element #{j} should be a (key, value) pair; is "
                f"{type(pair).__name__}"
            )
        pair = tuple(pair)
        if len(pair) != 2:
            raise ValueError(
                f"{owner} update sequence element #{j} has length {len(pair)}; 2 is required"
            )
        yield pair


def _as_parameter(value: Any) -> Any:
    """A plain Tensor becomes a Parameter (as PyTorch's containers do); anything else is kept."""
    return (
        Parameter(value)
        if isinstance(value, Tensor) and not isinstance(value, Parameter)
        else value
    )


class Container(Module):
    """PyTorch's deprecated nn.Container: a Module holding the keyword modules given (a
    FutureWarning, as PyTorch's, says to subclass Module instead).

    >>> [n for n, _ in tg.nn.Container(fc=tg.nn.Linear(2, 1)).named_children()]
    ['fc']
    """

    def __init__(self, **kwargs: Any) -> None:
        super().__init__()
        warnings.warn(
            "`nn.Container` is deprecated. All of its functionality is now implemented in "
            "`nn.Module`. Subclass that instead.",
            FutureWarning,
            stacklevel=2,
        )
        for key, value in kwargs.items():
            self.add_module(key, value)


class ModuleDict(Module):
    """Sub-modules by name, registered in insertion order (so parameters() follows it).

    >>> heads = tg.nn.ModuleDict({"a": tg.nn.Linear(2, 1), "b": tg.nn.Linear(2, 3)})
    >>> [name for name, _ in heads.named_parameters()]
    ['a.weight', 'a.bias', 'b.weight', 'b.bias']
    """

    def __init__(self, modules: Mapping[str, Module] | Iterable | None = None) -> None:
        super().__init__()
        if modules is not None:
            self.update(modules)

    def __getitem__(self, key: str) -> Module:
        return self._modules[key]

    def __setitem__(self, key: str, module: Module) -> None:
        self.add_module(key, module)

    def __delitem__(self, key: str) -> None:
        del self._modules[key]

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self) -> Iterator[str]:
        return iter(self._modules)

    def __contains__(self, key: object) -> bool:
        return key in self._modules

    def clear(self) -> None:
        """Remove every module."""
        self._modules.clear()

    def pop(self, key: str) -> Module:
        """Remove the module under key and return it."""
        module = self[key]
        del self[key]
        return module

    def keys(self) -> Any:
        """The names, in insertion order."""
        return self._modules.keys()

    def items(self) -> Any:
        """(name, module) pairs, in insertion order."""
        return self._modules.items()

    def values(self) -> Any:
        """The modules, in insertion order."""
        return self._modules.values()

    def update(self, modules: Mapping[str, Module] | Iterable) -> None:
        """Add (or replace) modules from a mapping or an iterable of (name, module) pairs."""
        for key, module in _pairs(modules, "ModuleDict"):
            self[key] = module

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError(
            "ModuleDict is a container, not a layer: call its modules, e.g. self.heads['a'](x)"
        )


class ParameterList(Module):
    """Parameters in a list, registered as "0", "1", ... (plain Tensors become Parameters).

    >>> ps = tg.nn.ParameterList([tg.zeros(2), tg.ones(3)]); [n for n, _ in ps.named_parameters()]
    ['0', '1']
    """

    def __init__(self, values: Iterable[Any] | None = None) -> None:
        super().__init__()
        object.__setattr__(self, "_size", 0)
        if values is not None:
            self.extend(values)

    def _key(self, idx: int) -> str:
        idx = operator.index(idx)
        if not -len(self) <= idx < len(self):
            raise IndexError(f"ParameterList index {idx} is out of range for length {len(self)}")
        return str(idx % len(self))

    def __getitem__(self, idx: int | slice) -> Any:
        if isinstance(idx, slice):
            return type(self)(self[i] for i in range(*idx.indices(len(self))))
        return getattr(self, self._key(idx))

    def __setitem__(self, idx: int, param: Any) -> None:
        setattr(self, self._key(idx), _as_parameter(param))

    def __len__(self) -> int:
        return self._size

    def __iter__(self) -> Iterator[Any]:
        return (self[i] for i in range(len(self)))

    def __iadd__(self, parameters: Iterable[Any]) -> "ParameterList":
        return self.extend(parameters)

    def append(self, value: Any) -> "ParameterList":
        """Add a parameter (or a tensor, made a Parameter) at the end."""
        object.__setattr__(self, "_size", self._size + 1)
        self[self._size - 1] = value
        return self

    def extend(self, values: Iterable[Any]) -> "ParameterList":
        """Append each of `values` (an iterable; a single Tensor is refused)."""
        if not isinstance(values, Iterable) or isinstance(values, Tensor):
            raise TypeError(
                f"ParameterList.extend should be called with an iterable, but got "
                f"{type(values).__name__}"
            )
        for value in values:
            self.append(value)
        return self

    def extra_repr(self) -> str:
        return "\n".join(f"  ({k}): {_describe(p)}" for k, p in enumerate(self))

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("ParameterList should not be called.")


def _describe(p: Any) -> str:
    if isinstance(p, Tensor):
        kind = "Parameter" if isinstance(p, Parameter) else "Tensor"
        return f"{kind} containing: [{p.dtype} of size {'x'.join(str(n) for n in p.shape)}]"
    return f"Object of type: {type(p).__name__}"


class ParameterDict(Module):
    """Parameters by name, in insertion order (plain Tensors become Parameters).

    >>> ps = tg.nn.ParameterDict({"scale": tg.ones(1)}); [n for n, _ in ps.named_parameters()]
    ['scale']
    """

    def __init__(self, parameters: Any = None) -> None:
        super().__init__()
        object.__setattr__(self, "_keys", {})
        if parameters is not None:
            self.update(parameters)

    def _check_key(self, key: Any) -> str:
        if not isinstance(key, str):
            raise TypeError(
                f"ParameterDict keys must be strings (they become parameter names), got "
                f"{type(key).__name__}"
            )
        return key

    def __getitem__(self, key: str) -> Any:
        if self._check_key(key) not in self._keys:
            raise KeyError(key)
        if key in self._parameters:  # (so that a key like "keys" is not shadowed by the method)
            return self._parameters[key]
        return getattr(self, key)

    def __setitem__(self, key: str, value: Any) -> None:
        self._keys[self._check_key(key)] = None
        setattr(self, key, _as_parameter(value))

    def __delitem__(self, key: str) -> None:
        del self._keys[key]
        delattr(self, key)

    def __len__(self) -> int:
        return len(self._keys)

    def __iter__(self) -> Iterator[str]:
        return iter(self._keys)

    def __contains__(self, key: object) -> bool:
        return key in self._keys

    def keys(self) -> Any:
        """The names, in insertion order."""
        return self._keys.keys()

    def items(self) -> Iterator[tuple[str, Any]]:
        """(name, parameter) pairs, in insertion order."""
        return ((k, self[k]) for k in self._keys)

    def values(self) -> Iterator[Any]:
        """The parameters, in insertion order."""
        return (self[k] for k in self._keys)

    def get(self, key: str, default: Any = None) -> Any:
        """The parameter under key, or default."""
        return self[key] if key in self else default

    def pop(self, key: str) -> Any:
        """Remove the parameter under key and return it."""
        value = self[key]
        del self[key]
        return value

    def clear(self) -> None:
        """Remove every parameter."""
        for key in list(self._keys):
            del self[key]

    def update(self, parameters: Any) -> None:
        """Add (or replace) parameters from a mapping or an iterable of (name, value) pairs."""
        for key, value in _pairs(parameters, "ParameterDict"):
            self[key] = value

    def extra_repr(self) -> str:
        return "\n".join(f"  ({k}): {_describe(p)}" for k, p in self.items())

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("ParameterDict should not be called.")
