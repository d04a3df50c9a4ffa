"""The tg.save structure: every value as a JSON node, arrays set apart for their .npy entries.

Layer L5: imports tensor, devices, dtypes, nn/parameter.py, and serialization/objects.py for what
is stored by reference or as an object (modules, classes, functions, enum members).

A number, bool, string or null stands for itself; every other value is a one-key object whose key
says what it is: "T" tensor, "P" Parameter, "A" array, "S" NumPy scalar (each naming its .npy
entry; a tensor's other keys: "grad" its requires_grad where it is not its kind's default, a
Parameter's "name" and "named"), "L" list, "U" tuple, "D" dict and "O" OrderedDict (lists of
[key, value]; a tuple key as a "U" node), "Z" set, "dtype" and "device" (their names), "M" a
module (its index among the header's objects), "G" a class or function and "E" an enum member
(by name), "H" a module's hooks.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

import numpy as np

from ..devices import device
from ..dtypes import UnsupportedDtype, bfloat16
from ..nn.module import Module
from ..nn.parameter import Parameter
from ..tensor import Tensor
from . import objects

SUPPORTED = (
    "Tensors, NumPy arrays and scalars, Python numbers, bools, strings and None, nested in "
    "lists, tuples, sets and dicts (keys: str, int, float, bool, None or tuples of those), "
    "dtypes, devices, nn.Modules, and classes and functions defined at the top level of a module"
)
_CONTAINERS = {list: "L", tuple: "U", dict: "D", OrderedDict: "O", set: "Z"}
_KEYS = (str, int, float, bool, type(None))


class Encoder:
    """One save: the arrays (entries "t0", "t1", ...), each tensor or array stored once (shared
    again on load), the modules (stored once, in the order first met), the containers being
    encoded (a container holding itself is an error)."""

    def __init__(self) -> None:
        self.arrays: dict[str, np.ndarray] = {}
        self.seen: dict[int, str] = {}
        self.objects: list[Any] = []
        self.object_ids: dict[int, int] = {}
        self.active: set[int] = set()
        self.keep: list[Any] = []  # what ids refer to stays alive until the save ends
        self.modules_open = 0  # how many modules' states are being encoded (errors say so)

    def encode(self, obj: Any, where: str) -> Any:
        """The JSON node for obj (`where` names it in errors: obj['model'].fc.weight)."""
        if obj is None or isinstance(obj, (bool, str)):
            return obj
        if type(obj) is int or type(obj) is float:  # (not bool, not subclasses)
            return obj
        if isinstance(obj, Tensor):
            return self._tensor(obj, where)
        if isinstance(obj, np.ndarray):
            return {"A": self._store(obj, obj, where)}
        if isinstance(obj, np.generic):
            return {"S": self._store(np.asarray(obj), obj, where)}
        if isinstance(obj, Module):
            return {"M": objects.encode_module(self, obj, where)}
        if isinstance(obj, objects._HooksToSave):
            return objects.encode_hooks(self, obj, where)
        tag = _CONTAINERS.get(type(obj))  # type: ignore[call-overload]
        if tag is not None:
            return self._container(obj, tag, where)
        node = _named_value(obj) or objects.encode_reference(obj, where)
        if node is None:
            raise TypeError(self._refusal(obj, where))
        return node

    def _refusal(self, obj: Any, where: str) -> str:
        hint = " (save its state_dict())" if hasattr(obj, "state_dict") else ""
        message = (
            f"tg.save cannot store {where}, a {type(obj).__name__}{hint}; it stores {SUPPORTED}"
        )
        if self.modules_open:  # (inside a module: say what to do with the attribute)
            message += (
                "; delete that attribute (or set it to None) before saving the module, or save "
                "the model's state_dict() instead of the whole model"
            )
        return message

    def _tensor(self, obj: Tensor, where: str) -> dict:
        kind = "P" if isinstance(obj, Parameter) else "T"
        node: dict = {kind: self._store(obj.numpy(), obj, where)}
        if obj.requires_grad != isinstance(obj, Parameter):  # (the default of each kind)
            node["grad"] = obj.requires_grad
        if isinstance(obj, Parameter) and obj._name is not None:
            node["name"], node["named"] = obj._name, not obj._auto_name
        return node

    def _container(self, obj: Any, tag: str, where: str) -> dict:
        if id(obj) in self.active:
            raise ValueError(f"tg.save cannot store {where}: it contains itself")
        self.active.add(id(obj))
        if tag in "LUZ":
            items: Any = [self.encode(v, f"{where}[{i}]") for i, v in enumerate(obj)]
        else:
            items = []
            for k, v in obj.items():
                if not _plain_key(k):
                    raise TypeError(
                        f"tg.save cannot store the key {k!r} ({type(k).__name__}) of {where}: "
                        f"dict keys must be str, int, float, bool, None or tuples of those"
                    )
                key = self.encode(k, where) if type(k) is tuple else k  # (a tuple: {"U": [...]})
                items.append([key, self.encode(v, f"{where}[{k!r}]")])
        self.active.discard(id(obj))
        return {tag: items}

    def _store(self, arr: np.ndarray, obj: Any, where: str) -> str:
        """The entry holding obj's values (stored on first sight)."""
        entry = self.seen.get(id(obj))
        if entry is None:
            if arr.dtype.hasobject:
                raise TypeError(
                    f"tg.save cannot store {where}: a NumPy array of Python objects would need "
                    f"pickle; convert it to a numeric or string array"
                )
            entry = self.seen[id(obj)] = f"t{len(self.arrays)}"
            self.arrays[entry] = arr
            self.keep.append(obj)
        return entry


def _plain_key(key: Any) -> bool:
    if type(key) is tuple:
        return all(_plain_key(k) for k in key)
    return type(key) in _KEYS


def _named_value(obj: Any) -> dict | None:
    """A dtype or device, stored by its name (None for anything else)."""
    if isinstance(obj, np.dtype) and not obj.hasobject and obj.names is None:
        return {"dtype": obj.str}
    if isinstance(obj, UnsupportedDtype):
        return {"dtype": obj.name}
    if isinstance(obj, device):
        return {"device": str(obj)}
    return None


class Decoder:
    """One load: the archive's entries become tensors and arrays once each; modules are made
    (without __init__) before any state is read, so references among them resolve."""

    def __init__(self, archive: Any, name: str, weights_only: bool) -> None:
        self.archive, self.name, self.weights_only = archive, name, weights_only
        self.loaded: dict[str, Any] = {}
        self.objects: list[Any] = []

    def decode(self, node: Any) -> Any:
        """The value a JSON node stands for."""
        if not isinstance(node, dict):
            return node
        if not node:
            raise ValueError(f"{self.name}: an empty node in the tg.save structure")
        tag, value = next(iter(node.items()))
        try:
            if tag in ("L", "U", "Z"):
                items = [self.decode(v) for v in value]
                return items if tag == "L" else tuple(items) if tag == "U" else set(items)
            if tag in ("D", "O"):
                pairs = [(self.decode(k), self.decode(v)) for k, v in value]
                return dict(pairs) if tag == "D" else OrderedDict(pairs)
        except TypeError:  # (an unhashable key or set item, pairs that are not pairs)
            raise ValueError(f"{self.name} is damaged: a malformed {tag!r} node") from None
        if tag in ("T", "P", "A", "S"):
            return self._array(tag, value, node)
        if tag == "M":
            return self._object(value)
        if tag in ("G", "E"):
            return objects.decode_reference(tag, value, self.weights_only, self.name)
        if tag == "H":
            return objects.decode_hooks(self, value)
        if tag == "dtype":
            return _dtype(value, self.name)
        if tag == "device":
            return device(value)
        raise ValueError(f"{self.name}: unknown node {tag!r} in the tg.save structure")

    def _array(self, tag: str, entry: str, node: dict) -> Any:
        if entry not in self.loaded:  # saved once and referenced twice: one object again
            if entry not in self.archive.files:
                raise ValueError(f"{self.name} is damaged: the entry {entry!r} is missing")
            arr = self.archive[entry]
            if tag == "T":
                self.loaded[entry] = Tensor(arr, requires_grad=node.get("grad", False))
            elif tag == "P":
                p = Parameter(arr, requires_grad=node.get("grad", True))
                p._name, p._auto_name = node.get("name"), not node.get("named", False)
                self.loaded[entry] = p
            else:
                self.loaded[entry] = arr[()] if tag == "S" else arr
        return self.loaded[entry]

    def _object(self, index: Any) -> Module:
        if type(index) is not int or not 0 <= index < len(self.objects):
            raise ValueError(f"{self.name} is damaged: no module {index!r} in its objects")
        return self.objects[index]


def _dtype(name: Any, source: str) -> Any:
    if name == "bfloat16":
        return bfloat16
    try:
        dtype = np.dtype(name)
    except TypeError:
        dtype = None
    if dtype is None or dtype.hasobject:
        raise ValueError(f"{source}: {name!r} is not a dtype tg.save writes")
    return dtype
