"""A module as a function of its parameters and buffers: `functional_call` runs it with other
tensors in their places (for that call only), `stack_module_state` stacks several models' state
for ensembling (`vmap(functional_call)` over the stack), as torch.func's.

Layer L5: nn (Module) and math (stack).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..math import stack
from ..nn.module import Module
from ..tensor import Tensor


def functional_call(
    module: Module,
    parameter_and_buffer_dicts: Mapping[str, Tensor] | Sequence[Mapping[str, Tensor]],
    args: Any = None,
    kwargs: dict[str, Any] | None = None,
    *,
    tie_weights: bool = True,
    strict: bool = False,
) -> Any:
    """`module(*args, **kwargs)` with its parameters and buffers named in the dict(s) (dotted
    names, as named_parameters gives) replaced by the given tensors for this call only.

    >>> lin = tg.nn.Linear(2, 1)
    >>> tapegrad.func.functional_call(lin, {"weight": tg.ones(1, 2), "bias": tg.zeros(1)},
    ...                               (tg.ones(2),))
    tensor([2.])
    """
    given = _merged(parameter_and_buffer_dicts)
    slots = _slots(module)  # name -> (owner module, registry name, attribute)
    _check_keys(module, given, slots, strict)
    replacements = dict(given)
    if tie_weights:
        replacements = _tied(module, given, slots)
    args = () if args is None else args if isinstance(args, tuple) else (args,)
    saved = []
    try:
        for name, value in replacements.items():
            if name in slots:
                owner, registry, attribute = slots[name]
                table = getattr(owner, registry)
                saved.append((table, attribute, table[attribute]))
                table[attribute] = value  # (the registries' own dicts: no Parameter check)
        return module(*args, **(kwargs or {}))
    finally:
        for table, attribute, original in reversed(saved):
            table[attribute] = original


def _merged(dicts: Any) -> dict:
    if isinstance(dicts, Mapping):
        return dict(dicts)
    merged: dict = {}
    for d in dicts:
        repeated = sorted(set(merged) & set(d))
        if repeated:
            raise ValueError(
                f"functional_call: {repeated} appear in more than one of the dictionaries, so "
                f"which tensor to use is ambiguous; give each name once"
            )
        merged.update(d)
    return merged


def _slots(module: Module) -> dict:
    """Every parameter and buffer name (tied ones under each of their names) -> where it lives."""
    slots: dict = {}
    for prefix, owner in module.named_modules(remove_duplicate=False):
        for registry in ("_parameters", "_buffers"):
            for attribute, value in getattr(owner, registry).items():
                if value is not None:
                    slots[f"{prefix}.{attribute}" if prefix else attribute] = (
                        owner,
                        registry,
                        attribute,
                    )
    return slots


def _check_keys(module: Module, given: dict, slots: dict, strict: bool) -> None:
    if not strict:
        return
    names = {n for n, _ in module.named_parameters()} | {n for n, _ in module.named_buffers()}
    missing, unexpected = sorted(names - set(given)), sorted(set(given) - set(slots))
    if missing or unexpected:
        lines = [f"Unexpected key(s): {', '.join(map(repr, unexpected))}."] if unexpected else []
        lines += [f"Missing key(s): {', '.join(map(repr, missing))}."] if missing else []
        raise RuntimeError(
            f"functional_call(strict=True): the tensors given do not match "
            f"{type(module).__name__}'s parameters and buffers:\n\t" + "\n\t".join(lines)
        )


def _tied(module: Module, given: dict, slots: dict) -> dict:
    """With tie_weights: a tensor given for one name of a tied parameter replaces all its names."""
    by_tensor: dict = {}
    for name, (owner, registry, attribute) in slots.items():
        by_tensor.setdefault(id(getattr(owner, registry)[attribute]), []).append(name)
    out = dict(given)
    for names in by_tensor.values():
        named = [n for n in names if n in given]
        if len(names) < 2 or not named:
            continue
        if len(named) > 1:
            raise ValueError(
                f"functional_call got values for {sorted(named)}, which are tied (one tensor "
                f"under several names); give one of them, or pass tie_weights=False"
            )
        for n in names:
            out[n] = given[named[0]]
    return out


def stack_module_state(models: Sequence[Module]) -> tuple[dict[str, Tensor], dict[str, Tensor]]:
    """`(params, buffers)`: each parameter and buffer of the models stacked along a new axis 0
    (parameters as new leaves that require grad as the originals do), for
    `vmap(functional_call)` over an ensemble of models of one class.

    >>> params, buffers = tapegrad.func.stack_module_state([tg.nn.Linear(2, 3) for _ in range(4)])
    >>> params["weight"].shape
    (4, 3, 2)
    """
    models = list(models)
    if not models:
        raise RuntimeError("stack_module_state: expected at least one model, got 0")
    if any(m.training != models[0].training for m in models):
        raise RuntimeError(
            "stack_module_state: expected all models to have the same training/eval mode"
        )
    if any(type(m) is not type(models[0]) for m in models):
        raise RuntimeError("stack_module_state: expected all models to be of the same class")
    params = {}
    for name, p in models[0].named_parameters():
        stacked = stack([dict(m.named_parameters())[name].detach() for m in models])
        params[name] = stacked.requires_grad_(p.requires_grad)
    buffers = {
        name: stack([dict(m.named_buffers())[name] for m in models]).detach()
        for name, _ in models[0].named_buffers()
    }
    return params, buffers
