"""What a PyTorch program passes, spelled for tapegrad: tensors, dtypes, sizes, devices, formats.

Tensors become `tg.tensor`s with the same values, dtype and `requires_grad`; `torch.float64`
becomes `tg.float64`, `torch.Size` a tuple, a device "cpu"; memory formats, layouts and generators
become tapegrad's names of the same spelling, so a name tapegrad lacks shows up as a refusal
(`MissingName`) rather than being dropped to make a sample pass.
"""

from __future__ import annotations

import inspect
from typing import Any

import numpy as np
import torch

import tapegrad as tg


class MissingName(Exception):
    """tapegrad has no counterpart for a name a PyTorch program uses (`tg.channels_last`)."""

    def __init__(self, name: str) -> None:
        super().__init__(f"tapegrad has no {name}")
        self.name = name


def tapegrad_name(path: str) -> Any:
    """`tg.<path>` ("nn.functional.relu"), or MissingName."""
    found: Any = tg
    for part in path.split("."):
        if not hasattr(found, part):
            raise MissingName(f"tg.{path}")
        found = getattr(found, part)
    return found


def _functional_namesake(fn: Any) -> Any:
    """A torch function given as an argument (TransformerEncoderLayer(activation=F.gelu)) as the
    program would pass it after its import lines change: tg.nn.functional's (or tg's) namesake;
    the torch function itself where tapegrad has none (it then fails as it would for a user)."""
    name = getattr(fn, "__name__", "")
    for path in (f"nn.functional.{name}", name):
        try:
            return tapegrad_name(path)
        except MissingName:
            continue
    return fn


def _module_namesake(module: torch.nn.Module) -> Any:
    """A torch layer without parameters given as an argument (distance_function=
    nn.PairwiseDistance()) as tg.nn's class of that name, built from the attributes named as its
    keywords (others keep their defaults: a difference then shows as a mismatch); a layer with
    parameters, or without a namesake, stays the torch one (it then fails as it would)."""
    ours = getattr(tg.nn, type(module).__name__, None)
    if ours is None or any(True for _ in module.parameters()):
        return module
    keywords = inspect.signature(ours).parameters
    return ours(**{k: getattr(module, k) for k in keywords if hasattr(module, k)})


def tapegrad_dtype(dtype: torch.dtype) -> Any:
    """torch.float64 -> tg.float64 (torch.bool -> tg.bool_ where tapegrad has no tg.bool)."""
    name = str(dtype).removeprefix("torch.")
    if name == "bool" and not hasattr(tg, "bool"):
        name = "bool_"
    return tapegrad_name(name)


class Translator:
    """Turns one sample's PyTorch values into tapegrad's, remembering which tensor became which
    (the same torch tensor twice becomes the same tg tensor: gradients are compared per input)."""

    def __init__(self) -> None:
        self.pairs: list[tuple[torch.Tensor, Any]] = []
        self._made: dict[int, Any] = {}

    def __call__(self, value: Any) -> Any:
        if isinstance(value, torch.Tensor):
            return self._tensor(value)
        if isinstance(value, torch.dtype):
            return tapegrad_dtype(value)
        if isinstance(value, torch.Size):
            return tuple(value)
        if isinstance(value, torch.device):
            return "cpu"
        if isinstance(value, (torch.memory_format, torch.layout)):
            return tapegrad_name(str(value).removeprefix("torch."))
        if isinstance(value, torch.Generator):
            return tapegrad_name("Generator")().manual_seed(value.initial_seed())
        if isinstance(value, tuple) and hasattr(value, "_fields"):  # a named tuple
            return type(value)(*(self(v) for v in value))
        if isinstance(value, (list, tuple)):
            return type(value)(self(v) for v in value)
        if isinstance(value, dict):
            return {k: self(v) for k, v in value.items()}
        if isinstance(value, torch.nn.Module):
            return _module_namesake(value)
        if callable(value) and str(getattr(value, "__module__", "")).startswith("torch"):
            return _functional_namesake(value)
        return value

    def _tensor(self, t: torch.Tensor) -> Any:
        made = self._made.get(id(t))
        if made is None:
            exact = t if t.dtype != torch.bfloat16 else t.float()  # (NumPy has no bfloat16)
            values = exact.numpy(force=True).copy()
            made = tg.tensor(values, dtype=tapegrad_dtype(t.dtype), requires_grad=t.requires_grad)
            self._made[id(t)] = made
            self.pairs.append((t, made))
        return made

    def differentiable(self) -> list[tuple[torch.Tensor, Any]]:
        """The (torch, tapegrad) tensor pairs that require a gradient, in the order met."""
        return [(t, m) for t, m in self.pairs if t.requires_grad]


def cotangent(like: torch.Tensor, rng: np.random.Generator) -> np.ndarray:
    """A random gradient for an output of `like`'s shape (the same one is given to both sides)."""
    return rng.standard_normal(tuple(like.shape)).astype(np.float64)
