"""tg.save / tg.load: state dicts and other nested containers in NumPy's .npz format, never pickle.

Layer L5: imports tensor and nn/parameter.py. A save is a zip of .npy files: one per tensor or array
(entries "t0", "t1", ...) and "__tapegrad__", a string array holding the structure as JSON, so any
NumPy reads it with `np.load(path, allow_pickle=False)` and loading never runs code.
"""

from __future__ import annotations

import json
import os
import zipfile
from collections import OrderedDict
from typing import Any

import numpy as np

from .devices import check_device
from .nn.parameter import Parameter
from .tensor import Tensor

STRUCTURE = "__tapegrad__"  # the entry holding the JSON structure
FORMAT, VERSION = "tapegrad.save", 1
SUPPORTED = (
    "Tensors, NumPy arrays and scalars, Python numbers, bools, strings and None, nested in "
    "lists, tuples and dicts (with str, int, float, bool or None keys)"
)

# JSON nodes: a number, bool, string or null stands for itself; every other value is a one-key
# object whose key says what it is: "T" tensor, "P" Parameter, "A" array, "S" NumPy scalar (each
# naming its .npy entry), "L" list, "U" tuple, "D" dict and "O" OrderedDict (lists of [key, value]).
_CONTAINERS = {list: "L", tuple: "U", dict: "D", OrderedDict: "O"}


def save(obj: Any, path: Any) -> None:
    """Write `obj` (e.g. `net.state_dict()`, or a dict of several) to exactly `path` as .npz.

    >>> tg.save({"model": net.state_dict(), "epoch": 3}, "checkpoint.npz")
    """
    arrays: dict[str, np.ndarray] = {}
    tree = _encode(obj, arrays, {}, set(), "obj")  # everything checked before the file is opened
    header = json.dumps({"format": FORMAT, "version": VERSION, "tree": tree})
    entries = {STRUCTURE: np.array(header), **arrays}
    if hasattr(path, "write"):  # an open binary file or io.BytesIO
        np.savez(path, **entries)  # type: ignore[arg-type]
        return
    with open(os.fspath(path), "wb") as f:  # np.savez would append ".npz" to a file name
        np.savez(f, **entries)  # type: ignore[arg-type]


def load(
    path: Any,
    map_location: Any = None,
    pickle_module: Any = None,
    *,
    weights_only: bool | None = None,
    mmap: bool | None = None,
) -> Any:
    """Read what tg.save wrote: Tensors (dtype, shape and requires_grad kept), arrays, numbers,
    strings, lists, tuples and dicts in their saved key order. PyTorch's keywords are accepted:
    `map_location` may only name the CPU (or be a function, as `lambda storage, loc: storage`), and
    `weights_only` changes nothing, as a tg.save file is never a pickle.

    >>> net.load_state_dict(tg.load("checkpoint.npz", map_location="cpu")["model"])
    """
    _check_map_location(map_location)
    if pickle_module is not None:
        raise TypeError("tg.load: pickle_module= is not supported; tg.save files are never pickles")
    name = getattr(path, "name", path)
    try:
        archive = np.load(path, allow_pickle=False)
    except (ValueError, OSError, EOFError, zipfile.BadZipFile) as e:
        if isinstance(e, FileNotFoundError):
            raise
        raise ValueError(
            f"{name} is not a file written by tg.save ({e}); tg.load reads the .npz files tg.save "
            f"writes (a PyTorch checkpoint needs torch.load, then .numpy() on each tensor)"
        ) from None
    if not isinstance(archive, np.lib.npyio.NpzFile):
        raise ValueError(
            f"{name} holds a single NumPy array, not a tg.save file; read it with np.load"
        )
    with archive:
        if STRUCTURE not in archive.files:
            raise ValueError(
                f"{name} is an .npz archive but not a tg.save file (it has no {STRUCTURE!r} "
                f"entry); read it with np.load(path) instead"
            )
        try:
            header = json.loads(str(archive[STRUCTURE]))
            if header.get("format") != FORMAT:
                raise ValueError("unknown format")
        except (ValueError, AttributeError):
            raise ValueError(f"{name}: the {STRUCTURE!r} entry is not a tg.save header") from None
        if header.get("version") != VERSION:
            raise ValueError(
                f"{name} was written by format version {header.get('version')}; this tapegrad "
                f"reads version {VERSION}: load it with the tapegrad that saved it"
            )
        return _decode(header["tree"], archive, {}, name)


def _check_map_location(map_location: Any) -> None:
    """Every tensor tapegrad saves is on the CPU: a map_location naming elsewhere is an error."""
    if map_location is None or callable(map_location):  # a function only moves what is elsewhere
        return
    places = map_location.values() if isinstance(map_location, dict) else [map_location]
    for place in places:
        check_device(place, "tg.load(map_location=...)")


def _encode(obj: Any, arrays: dict, seen: dict, active: set, where: str) -> Any:
    """The JSON node for obj; arrays go into `arrays`. `seen` maps an already stored tensor or array
    to its entry (stored once, shared on load); `active` holds the containers being encoded."""
    if obj is None or isinstance(obj, (bool, str)):
        return obj
    if type(obj) is int or type(obj) is float:  # (not bool, not subclasses)
        return obj
    if isinstance(obj, Tensor):
        kind = "P" if isinstance(obj, Parameter) else "T"
        node: dict = {kind: _store(obj.numpy(), obj, arrays, seen, where)}
        if obj.requires_grad != isinstance(obj, Parameter):  # (the default of each kind)
            node["grad"] = obj.requires_grad
        return node
    if isinstance(obj, np.ndarray):
        return {"A": _store(obj, obj, arrays, seen, where)}
    if isinstance(obj, np.generic):
        return {"S": _store(np.asarray(obj), obj, arrays, seen, where)}
    tag = _CONTAINERS.get(type(obj))  # type: ignore[call-overload]
    if tag is None:
        hint = " (save net.state_dict())" if hasattr(obj, "state_dict") else ""
        raise TypeError(
            f"tg.save cannot store {where}, a {type(obj).__name__}{hint}; it stores {SUPPORTED}"
        )
    if id(obj) in active:
        raise ValueError(f"tg.save cannot store {where}: it contains itself")
    active.add(id(obj))
    if tag in "LU":
        items: Any = [_encode(v, arrays, seen, active, f"{where}[{i}]") for i, v in enumerate(obj)]
    else:
        items = []
        for k, v in obj.items():
            if not (k is None or type(k) in (str, int, float, bool)):
                raise TypeError(
                    f"tg.save cannot store the key {k!r} ({type(k).__name__}) of {where}: dict "
                    f"keys must be str, int, float, bool or None"
                )
            items.append([k, _encode(v, arrays, seen, active, f"{where}[{k!r}]")])
    active.discard(id(obj))
    return {tag: items}


def _store(arr: np.ndarray, obj: Any, arrays: dict, seen: dict, where: str) -> str:
    """The entry holding obj's values (stored on first sight)."""
    entry = seen.get(id(obj))
    if entry is None:
        if arr.dtype.hasobject:
            raise TypeError(
                f"tg.save cannot store {where}: a NumPy array of Python objects would need "
                f"pickle; convert it to a numeric or string array"
            )
        entry = seen[id(obj)] = f"t{len(arrays)}"
        arrays[entry] = arr
    return entry


def _decode(node: Any, archive: Any, loaded: dict, name: str) -> Any:
    if not isinstance(node, dict):
        return node
    if len(node) not in (1, 2):
        raise ValueError(f"{name}: a malformed node in the tg.save structure: {node!r:.80}")
    tag, value = next(iter(node.items()))
    if tag in ("L", "U"):
        items = [_decode(v, archive, loaded, name) for v in value]
        return items if tag == "L" else tuple(items)
    if tag in ("D", "O"):
        pairs = [(k, _decode(v, archive, loaded, name)) for k, v in value]
        return dict(pairs) if tag == "D" else OrderedDict(pairs)
    if tag not in ("T", "P", "A", "S"):
        raise ValueError(f"{name}: unknown node {tag!r} in the tg.save structure")
    if value not in loaded:  # a tensor or array saved once and referenced twice stays one object
        if value not in archive.files:
            raise ValueError(f"{name} is damaged: the entry {value!r} is missing")
        arr = archive[value]
        if tag == "T":
            loaded[value] = Tensor(arr, requires_grad=node.get("grad", False))
        elif tag == "P":
            loaded[value] = Parameter(arr, requires_grad=node.get("grad", True))
        else:
            loaded[value] = arr[()] if tag == "S" else arr
    return loaded[value]


# ---- PyTorch's safe-globals registry (torch.serialization): nothing to allow here ----------------
# torch.load unpickles, and refuses classes not allowed by these; tg.load never unpickles, so the
# list changes nothing. They exist so programs that fill it (pytorch/examples do) run.
_safe_globals: list = []


def add_safe_globals(safe_globals: list) -> None:
    """Accepted for PyTorch's programs; tg.load never unpickles, so it allows nothing new.

    >>> tg.serialization.add_safe_globals([tg.nn.Linear])
    """
    _safe_globals.extend(safe_globals)


def get_safe_globals() -> list:
    """What add_safe_globals was given.

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
    """`with tg.serialization.safe_globals([...]):` as PyTorch's; changes nothing in tg.load.

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


__all__ = [
    "add_safe_globals",
    "clear_safe_globals",
    "get_safe_globals",
    "load",
    "safe_globals",
    "save",
]
