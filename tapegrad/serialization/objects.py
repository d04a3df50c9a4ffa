"""Whole modules in tg.save files, and the classes, functions and enum members they hold, by name.

Layer L5: imports nn (module, hooks, parameter) and serialization/allowed.py. A module is stored
as its class (module path and qualified name) and its state: its __dict__ in order (parameters,
buffers persistent or not, sub-modules, the training flag and its plain attributes), or what its
class's __getstate__ gives, as pickle takes it. tg.load makes it with cls.__new__ (no __init__
runs) and sets that state back (through the class's __setstate__ when it has one), as unpickling
does; every class and function goes through allowed.resolve first. Hooks are stored by name as
PyTorch pickles them: functions defined at the top level of a module (a lambda is refused, as
pickle refuses it).
"""

from __future__ import annotations

import enum
import pickle
import types
from typing import TYPE_CHECKING, Any

from ..nn.hooks import ModuleHooks, _ids
from ..nn.module import Module
from ..nn.parameter import UninitializedTensorMixin
from .allowed import importable, module_class, resolve

if TYPE_CHECKING:
    from .values import Decoder, Encoder

_REGISTRIES = ("_parameters", "_buffers", "_modules")  # stored with paths `obj.fc.weight`
_HOOK_KINDS = {
    "forward_pre": "forward pre-hooks",
    "forward": "forward hooks",
    "backward": "backward hooks",
    "backward_pre": "backward pre-hooks",
    "state_dict_pre": "state_dict pre-hooks",
    "load_post": "load_state_dict post-hooks",
}
_INSTEAD = "or save its state_dict() instead (and load_state_dict() into a new model)"


class NotSavableError(TypeError, AttributeError, pickle.PicklingError):
    """A function or class tg.save cannot name (a lambda, a local function): PyTorch raises
    pickle.PicklingError there (AttributeError for a local one, before Python 3.14), tapegrad's
    other refusals are TypeErrors; this is all three.

    >>> issubclass(tg.serialization.NotSavableError, TypeError)
    True
    """


def encode_module(encoder: Encoder, module: Module, where: str) -> int:
    """The module's index among the file's objects (stored at its first sight: shared modules
    and modules referring to each other stay one object each)."""
    index = encoder.object_ids.get(id(module))
    if index is not None:
        return index
    state = _state(module, where)  # (first: a parametrized module's class refuses itself)
    cls = type(module)
    if not importable(cls):
        raise NotSavableError(
            f"tg.save cannot store {where}: its class {cls.__qualname__} cannot be found again "
            f"by name (it is defined inside a function); define it at the top level of a "
            f"module, {_INSTEAD}"
        )
    index = encoder.object_ids[id(module)] = len(encoder.objects)
    encoder.objects.append(None)
    encoder.keep.append(module)
    entries = []
    encoder.modules_open += 1
    for key, value in state.items():
        if key in _REGISTRIES and isinstance(value, dict):
            items = [[k, encoder.encode(v, f"{where}.{k}")] for k, v in value.items()]
            entries.append([key, {"O": items}])
        else:
            entries.append([key, encoder.encode(value, f"{where}.{key}")])
    encoder.modules_open -= 1
    encoder.objects[index] = {"class": [cls.__module__, cls.__qualname__], "state": entries}
    return index


def _state(module: Module, where: str) -> dict:
    """What pickle would take of the module (its __dict__, or its class's __getstate__, which
    refuses a parametrized module as PyTorch's does), its hook registry marked for
    encode_hooks."""
    getstate = getattr(type(module), "__getstate__", None)
    if getstate is not None and getstate is not getattr(object, "__getstate__", None):
        state = getstate(module)
        if not isinstance(state, dict):
            raise TypeError(
                f"tg.save cannot store {where}: {type(module).__name__}.__getstate__ returned a "
                f"{type(state).__name__}, not a dict of attributes"
            )
    else:
        state = dict(module.__dict__)
    registered = [*state.get("_parameters", {}).values(), *state.get("_buffers", {}).values()]
    if any(isinstance(t, UninitializedTensorMixin) for t in registered):
        raise TypeError(
            f"tg.save cannot store {where}: it is a lazy module whose parameters are not made "
            f"yet; call it once on an input of the right size before saving, {_INSTEAD}"
        )
    hooks = state.get("_hooks")
    if isinstance(hooks, ModuleHooks):
        state["_hooks"] = _HooksToSave(hooks)
    return state


class _HooksToSave:
    """A module's hook registry on its way into the file (values.Encoder asks encode_hooks)."""

    def __init__(self, hooks: ModuleHooks) -> None:
        self.hooks = hooks


def encode_hooks(encoder: Encoder, saving: _HooksToSave, where: str) -> dict:
    """{"H": {registry: [[hook, with_kwargs, always_call], ...]}}: each hook by name, as PyTorch
    pickles them (a hook that is a lambda, a local function or an object is refused)."""
    hooks, registries = saving.hooks, {}
    owner = where.removesuffix("._hooks")
    for slot, kind in _HOOK_KINDS.items():
        listed = []
        for key, hook in getattr(hooks, slot).items():
            function = isinstance(hook, (types.FunctionType, types.BuiltinFunctionType))
            if not (function and importable(hook)):
                error = NotSavableError if function else TypeError
                raise error(
                    f"tg.save cannot store {owner}'s {kind[:-1]} {_describe(hook)}: tg.save "
                    f"stores hooks that are functions defined at the top level of a module (as "
                    f"PyTorch pickles them); remove it (handle.remove()) before saving and "
                    f"register it again after loading, {_INSTEAD}"
                )
            node = encoder.encode(hook, f"{owner}'s {kind[:-1]}")
            listed.append([node, key in hooks.with_kwargs, key in hooks.always])
        if listed:
            registries[slot] = listed
    return {"H": registries}


def _describe(obj: Any) -> str:
    qualname = getattr(obj, "__qualname__", None)
    return qualname if isinstance(qualname, str) else f"(a {type(obj).__name__})"


def decode_hooks(decoder: Decoder, value: Any) -> ModuleHooks:
    """A ModuleHooks holding the hooks an "H" node lists (each looked up as allowed)."""
    hooks = ModuleHooks()
    if not isinstance(value, dict) or not set(value) <= set(_HOOK_KINDS):
        raise ValueError(f"{decoder.name} is damaged: malformed hooks {value!r:.80}")
    for slot, listed in value.items():
        for node, with_kwargs, always in listed:
            key = next(_ids)
            getattr(hooks, slot)[key] = decoder.decode(node)
            if with_kwargs:
                hooks.with_kwargs.add(key)
            if always:
                hooks.always.add(key)
    return hooks


def encode_reference(obj: Any, where: str) -> dict | None:
    """A class or function as {"G": [module, qualname]}, an enum member as {"E": [module,
    qualname, name]}; None for anything else."""
    if isinstance(obj, enum.Enum):
        cls = type(obj)
        if importable(cls):
            return {"E": [cls.__module__, cls.__qualname__, obj.name]}
        raise NotSavableError(
            f"tg.save cannot store {where}, a member of the enum {cls.__qualname__}, which cannot "
            f"be found again by name; define the enum at the top level of a module"
        )
    if not isinstance(obj, (type, types.FunctionType, types.BuiltinFunctionType)):
        return None
    if importable(obj):
        return {"G": [obj.__module__, obj.__qualname__]}
    raise NotSavableError(
        f"tg.save cannot store {where}, {getattr(obj, '__qualname__', obj)!s}: a lambda or a "
        f"function or class defined inside a function cannot be found again by name (PyTorch "
        f"cannot pickle it either); define it at the top level of a module, or remove the "
        f"attribute before saving, {_INSTEAD}"
    )


def decode_reference(tag: str, value: Any, weights_only: bool, source: str) -> Any:
    """The class, function or enum member a "G" or "E" node names (if it is allowed)."""
    if not (isinstance(value, list) and all(isinstance(v, str) for v in value)):
        raise ValueError(f"{source} is damaged: a malformed name {value!r:.80}")
    if tag == "G" and len(value) == 2:
        return resolve(value[0], value[1], weights_only, source)
    if tag == "E" and len(value) == 3:
        cls = resolve(value[0], value[1], weights_only, source)
        if isinstance(cls, type) and issubclass(cls, enum.Enum) and value[2] in cls.__members__:
            return cls[value[2]]
    raise ValueError(f"{source} is damaged: a malformed name {value!r:.80}")


def make_objects(decoder: Decoder, entries: Any) -> None:
    """Every module of the file, made without __init__ (each class checked before any is made),
    then given its state."""
    source = decoder.name
    if not isinstance(entries, list) or not all(_well_formed(e) for e in entries):
        raise ValueError(f"{source} is damaged: malformed objects in its tg.save structure")
    classes = []
    for entry in entries:
        module, qualname = entry["class"]
        found = resolve(module, qualname, decoder.weights_only, source)
        classes.append(module_class(found, f"{module}.{qualname}", source))
    decoder.objects = [cls.__new__(cls) for cls in classes]
    for obj, entry in zip(decoder.objects, entries):
        state = {key: decoder.decode(node) for key, node in entry["state"]}
        setstate = getattr(type(obj), "__setstate__", None)
        if setstate is not None:
            setstate(obj, state)
        else:
            obj.__dict__.update(state)


def names_in(header: dict) -> list[tuple[str, str]]:
    """The classes and functions a file names, (module, qualname) in the order tg.save met them
    (each once)."""
    found: dict[tuple[str, str], None] = {}
    entries, visited = header.get("objects", []), set()

    def walk(node: Any) -> None:
        if isinstance(node, list):
            for item in node:
                walk(item)
        if not isinstance(node, dict) or not node:
            return
        tag, value = next(iter(node.items()))
        if tag in ("G", "E") and isinstance(value, list) and len(value) >= 2:
            found.setdefault((str(value[0]), str(value[1])))
        elif tag == "M" and value not in visited and isinstance(value, int):
            visited.add(value)
            if 0 <= value < len(entries) and _well_formed(entries[value]):
                found.setdefault(tuple(entries[value]["class"]))
                walk(entries[value]["state"])
        elif tag == "H" and isinstance(value, dict):
            walk(list(value.values()))
        elif tag in ("L", "U", "Z", "D", "O"):
            walk(value)

    walk(header.get("tree"))
    return list(found)


def _well_formed(entry: Any) -> bool:
    if not isinstance(entry, dict) or set(entry) != {"class", "state"}:
        return False
    cls, state = entry["class"], entry["state"]
    names = isinstance(cls, list) and len(cls) == 2 and all(isinstance(c, str) for c in cls)
    pairs = isinstance(state, list) and all(
        isinstance(p, list) and len(p) == 2 and isinstance(p[0], str) for p in state
    )
    return names and pairs


__all__ = ["NotSavableError"]
