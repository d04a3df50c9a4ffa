"""Which classes and functions tg.load may bring back by name: PyTorch's safe-globals registry
(add_safe_globals, safe_globals, ...) and the check every class or function a file names passes.

Layer L5: imports nn/module.py (the class every saved object must be). As torch.load's
weights_only=True, a name is allowed when the program listed it; tapegrad's own modules (every
nn.Module subclass defined in tapegrad) and tapegrad.nn's functions and enums are allowed
without a list. A name that is not allowed is a pickle.UnpicklingError, PyTorch's error type,
raised before any module is imported. With weights_only=False any importable name is taken (its
module is imported, as unpickling does).
"""

from __future__ import annotations

import enum
import importlib
import pickle
import sys
import types
from typing import Any

from ..nn.module import Module

# What add_safe_globals and the safe_globals contexts were given: objects, or (object, "name")
# pairs for an object saved under another name (PyTorch's form for renamed classes).
_safe_globals: list = []


def add_safe_globals(safe_globals: list) -> None:
    """Allow tg.load (weights_only=True) to rebuild these classes and functions from a file.

    >>> tg.serialization.add_safe_globals([tg.nn.Linear])
    """
    _safe_globals.extend(safe_globals)


def get_safe_globals() -> list:
    """What add_safe_globals (and the safe_globals contexts open now) were given.

    >>> isinstance(tg.serialization.get_safe_globals(), list)
    True
    """
    return list(_safe_globals)


def clear_safe_globals() -> None:
    """Forget what add_safe_globals was given.

    >>> tg.serialization.clear_safe_globals()
    """
    _safe_globals.clear()


class safe_globals:
    """`with tg.serialization.safe_globals([...]):` allows these in tg.load inside the block.

    >>> with tg.serialization.safe_globals([tg.nn.Linear]):
    ...     pass
    """

    def __init__(self, safe_globals: list) -> None:
        self.safe_globals = list(safe_globals)

    def __enter__(self) -> None:
        _safe_globals.extend(self.safe_globals)

    def __exit__(self, *exc: Any) -> None:
        for g in self.safe_globals:
            _safe_globals.remove(g)


def name_of(obj: Any) -> str:
    """`module.qualname`: the name a class or function is saved under."""
    return f"{obj.__module__}.{obj.__qualname__}"


def importable(obj: Any) -> bool:
    """Whether `obj` (a class or function) is found again by its module and qualified name, as
    pickle finds globals (a lambda, a function defined in a function or a method is not)."""
    module, qualname = getattr(obj, "__module__", None), getattr(obj, "__qualname__", None)
    if not isinstance(module, str) or not isinstance(qualname, str) or "<" in qualname:
        return False
    try:
        return _attribute(sys.modules[module], qualname) is obj
    except (KeyError, AttributeError):
        return False


def resolve(module: str, qualname: str, weights_only: bool, source: str) -> Any:
    """The class or function saved as `module.qualname`, if tg.load may bring it back."""
    name = f"{module}.{qualname}"
    for entry in reversed(_safe_globals):  # (the latest listing wins, as PyTorch's)
        obj, listed = entry if isinstance(entry, tuple) else (entry, None)
        if (listed or _listed_name(obj)) == name:
            return obj
    if weights_only and not _tapegrad_own(module):
        raise pickle.UnpicklingError(
            f"Weights only load failed: {source} names {name}, which tg.load does not rebuild by "
            f"default (with weights_only=True it rebuilds tapegrad's own modules, tensors and "
            f"plain values). If you trust this file, allow the class or function with "
            f"tg.serialization.add_safe_globals([{name}]) or inside "
            f"`with tg.serialization.safe_globals([{name}]):`, or load with weights_only=False "
            f"(which imports any module the file names)"
        )
    try:
        found = _attribute(importlib.import_module(module), qualname)
    except (ImportError, AttributeError, ValueError) as e:
        raise AttributeError(f"{source} names {name}, which cannot be found: {e}") from None
    if weights_only and not _tapegrad_kind(found, name):
        raise pickle.UnpicklingError(
            f"Weights only load failed: {source} names {name}, which is not a tapegrad module "
            f"class, nor a function or enum of tapegrad.nn; allow it with "
            f"tg.serialization.add_safe_globals([...]) if you trust this file"
        )
    return found


def allowed(module: str, qualname: str) -> bool:
    """Whether tg.load (weights_only=True) rebuilds what a file names module.qualname (tapegrad's
    own modules are imported to be checked, no other is)."""
    try:
        resolve(module, qualname, True, "")
    except (pickle.UnpicklingError, AttributeError):
        return False
    return True


def module_class(cls: Any, name: str, source: str) -> type[Module]:
    """cls, checked to be a Module subclass (what tg.save stores as an object)."""
    if not (isinstance(cls, type) and issubclass(cls, Module)):
        raise ValueError(
            f"{source} is damaged: {name} is stored as a module but is not a tapegrad nn.Module "
            f"class"
        )
    return cls


def _listed_name(obj: Any) -> str | None:
    try:
        return name_of(obj)
    except AttributeError:
        return None


def _attribute(root: Any, qualname: str) -> Any:
    obj = root
    for part in qualname.split("."):
        obj = getattr(obj, part)
    return obj


def _tapegrad_own(module: str) -> bool:
    return module == "tapegrad" or module.startswith("tapegrad.")


def _tapegrad_kind(found: Any, name: str) -> bool:
    """A tapegrad name allowed by default: an nn.Module subclass defined in tapegrad, or a
    function or Enum class of tapegrad.nn, reached by its own name (not through an import of
    something else that a tapegrad module holds)."""
    if not (importable(found) and name_of(found) == name):
        return False
    if isinstance(found, type) and issubclass(found, Module):
        return True
    in_nn = found.__module__.startswith("tapegrad.nn.")
    is_enum = isinstance(found, type) and issubclass(found, enum.Enum)
    return in_nn and (is_enum or isinstance(found, types.FunctionType))
