"""tg.save / tg.load: state dicts, nested containers and whole modules in NumPy's .npz format,
never pickle.

Layer L5: the package's modules, by topic: values.py (the structure: each value a JSON node),
objects.py (whole nn.Modules, and classes, functions and enum members by name), allowed.py
(PyTorch's safe-globals registry: which of those tg.load may bring back). A save is a zip of .npy
files: one per tensor or array (entries "t0", "t1", ...) and "__tapegrad__", a string array
holding the structure as JSON, so any NumPy reads it with `np.load(path, allow_pickle=False)`;
loading runs no code from the file (a module is made with cls.__new__ and given its state, as
unpickling does, and only for the classes allowed).
"""

from __future__ import annotations

import json
import os
import zipfile
from typing import Any

import numpy as np

from ..devices import check_device
from .allowed import add_safe_globals, allowed, clear_safe_globals, get_safe_globals, safe_globals
from .objects import NotSavableError, make_objects, names_in
from .values import Decoder, Encoder

STRUCTURE = "__tapegrad__"  # the entry holding the JSON structure
# version 2 added whole modules ("objects" in the header); a file without any is written as 1
FORMAT, VERSION, VERSIONS = "tapegrad.save", 2, (1, 2)


def save(obj: Any, path: Any) -> None:
    """Write `obj` to exactly `path` as .npz: a state dict, a dict of several (a checkpoint),
    tensors, or a whole nn.Module (its class by name, parameters, buffers, sub-modules and plain
    attributes; shared parameters stay shared), also inside lists and dicts.

    >>> tg.save({"model": net.state_dict(), "epoch": 3}, "checkpoint.npz")
    """
    encoder = Encoder()
    tree = encoder.encode(obj, "obj")  # everything checked before the file is opened
    header: dict = {"format": FORMAT, "version": VERSION if encoder.objects else 1, "tree": tree}
    if encoder.objects:
        header["objects"] = encoder.objects
    entries = {STRUCTURE: np.array(json.dumps(header)), **encoder.arrays}
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
    strings, lists, tuples and dicts in their saved key order, and whole modules, rebuilt without
    running their __init__. As torch.load's default weights_only=True, a module's class (or a
    function it holds) is rebuilt only when allowed: tapegrad's own modules (and tapegrad.nn's
    functions) always, others when listed with tg.serialization.add_safe_globals or inside
    `with tg.serialization.safe_globals([...])`; anything else is a pickle.UnpicklingError.
    weights_only=False rebuilds any class the file names, importing the module it names (so only
    for files you trust). `map_location` may only name the CPU (or be a function, as
    `lambda storage, loc: storage`).

    >>> net.load_state_dict(tg.load("checkpoint.npz", map_location="cpu")["model"])
    """
    _check_map_location(map_location)
    if pickle_module is not None:
        raise TypeError("tg.load: pickle_module= is not supported; tg.save files are never pickles")
    archive, name = _open(path)
    with archive:
        header = _header(archive, name)
        decoder = Decoder(archive, str(name), weights_only is not False)
        make_objects(decoder, header.get("objects", []))
        return decoder.decode(header["tree"])


def get_unsafe_globals_in_checkpoint(f: Any) -> list[str]:
    """The classes and functions a tg.save file names that tg.load (weights_only=True) would
    refuse now: what to list with add_safe_globals, as "module.qualname", in the file's order.

    >>> tg.serialization.get_unsafe_globals_in_checkpoint("model.pt")  # doctest: +SKIP
    ['model.RNNModel']
    """
    archive, name = _open(f)
    with archive:
        header = _header(archive, name)
    return [f"{m}.{q}" for m, q in names_in(header) if not allowed(m, q)]


def _open(path: Any) -> tuple[Any, Any]:
    """The .npz archive at path (a file name or an open binary file), and a name for errors."""
    name = getattr(path, "name", path if isinstance(path, (str, os.PathLike)) else "the file")
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
    return archive, name


def _header(archive: Any, name: Any) -> dict:
    """The archive's structure entry, checked to be a tg.save header this version reads."""
    if STRUCTURE not in archive.files:
        raise ValueError(
            f"{name} is an .npz archive but not a tg.save file (it has no {STRUCTURE!r} "
            f"entry); read it with np.load(path) instead"
        )
    try:
        header = json.loads(str(archive[STRUCTURE]))
        if not isinstance(header, dict) or header.get("format") != FORMAT:
            raise ValueError("unknown format")
    except (ValueError, AttributeError):
        raise ValueError(f"{name}: the {STRUCTURE!r} entry is not a tg.save header") from None
    if header.get("version") not in VERSIONS:
        raise ValueError(
            f"{name} was written by format version {header.get('version')}; this tapegrad "
            f"reads versions {', '.join(map(str, VERSIONS))}: load it with the tapegrad that "
            f"saved it"
        )
    return header


def _check_map_location(map_location: Any) -> None:
    """Every tensor tapegrad saves is on the CPU: a map_location naming elsewhere is an error."""
    if map_location is None or callable(map_location):  # a function only moves what is elsewhere
        return
    places = map_location.values() if isinstance(map_location, dict) else [map_location]
    for place in places:
        check_device(place, "tg.load(map_location=...)")


__all__ = [
    "NotSavableError",
    "add_safe_globals",
    "clear_safe_globals",
    "get_safe_globals",
    "get_unsafe_globals_in_checkpoint",
    "load",
    "safe_globals",
    "save",
]
