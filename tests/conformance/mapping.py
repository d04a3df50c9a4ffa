"""From PyTorch's databases to tapegrad: which entries have a counterpart, and how each is called.

An OpInfo's variants are read off the OpInfo itself, so a name tapegrad gains joins the run by
itself: the function `torch.<name>` is `tg.<name>` (`torch.nn.functional.relu` is
`tg.nn.functional.relu`), the method `Tensor.<m>` is tapegrad's `Tensor.<m>`, an operator is the
same Python operator, an alias (`torch.clip` for `clamp`) is one more function/method/in-place
variant. Where the OpInfo calls a lambda, the lambda runs as PyTorch wrote it with `torch` meaning
tapegrad. An entry runs when at least one of its variants exists in tapegrad; its other variants
are then refusals ("missing name"). Modules are `tg.nn.<Class>`, optimizers `tg.optim.<Class>`,
schedulers `tg.optim.lr_scheduler.<Class>`.

Extending: a rename is one line in RENAMES, a random op one line in RANDOM (seeded alike on both
sides, values compared), an op returning uninitialised memory one line in UNINITIALIZED.
"""

from __future__ import annotations

import dis
import types
from dataclasses import dataclass
from functools import cache
from typing import Any, Callable

import torch

import tapegrad as tg

from .translate import MissingName, tapegrad_name

# OpInfo name (or alias) -> tapegrad's path, where tapegrad spells the same function otherwise.
RENAMES: dict[str, str] = {}

# Random results, compared by value: before every call of a variant both libraries are seeded
# alike (what PyTorch's wrapper_set_seed does inside its lambdas, done for the variants it does not
# wrap too: Tensor.cauchy_, ...), and tapegrad draws PyTorch's CPU streams value for value.
RANDOM: frozenset[str] = frozenset(
    """bernoulli multinomial normal randn randn_like rand_like randint randint_like cauchy
    exponential geometric log_normal uniform nn.functional.dropout nn.functional.dropout2d
    nn.functional.dropout3d nn.functional.alpha_dropout nn.functional.feature_alpha_dropout
    nn.functional.rrelu nn.functional.fractional_max_pool2d nn.functional.fractional_max_pool3d
    svd_lowrank pca_lowrank""".split()
)

# Results whose values mean nothing, uninitialised memory: their shape, dtype and structure are
# compared, not values.
UNINITIALIZED: frozenset[str] = frozenset(
    """empty empty_like empty_strided empty_permuted new_empty new_empty_strided""".split()
)

# Sorting ops: the position of `dim` among their arguments (their indices may order ties otherwise).
SORTS: dict[str, int] = {"sort": 0, "argsort": 0, "topk": 1, "kthvalue": 1, "mode": 0}

# Entries tolerated wider than verdicts.TOLERANCES, with the reason (none needed so far).
TOLERANCES: dict[str, tuple[float, float]] = {}


@dataclass(frozen=True)
class Variant:
    """One way a PyTorch program calls an entry, and tapegrad's counterpart (None: missing)."""

    kind: str  # "function" | "method" | "in-place" | "operator" | "in-place operator"
    spelling: str  # as a PyTorch program writes it: "torch.add", "Tensor.add_", "operator.add"
    torch_fn: Callable[..., Any]  # called as fn(input, *args, **kwargs)
    tapegrad_fn: Callable[..., Any] | None
    missing: str = ""  # what tapegrad lacks, when tapegrad_fn is None

    @property
    def inplace(self) -> bool:
        return self.kind.startswith("in-place")


@dataclass(frozen=True)
class OpEntry:
    """An OpInfo (with its variant name) and the variants tapegrad is measured on."""

    name: str  # "add", "max.binary" (OpInfo name, and its variant_test_name after a dot)
    info: Any  # the OpInfo
    variants: tuple[Variant, ...]
    values: bool  # False for UNINITIALIZED entries
    tolerance: tuple[float, float] | None = None  # (rtol, atol); None: by dtype
    seeded: bool = False  # True for RANDOM entries: both libraries seeded before every call

    def seed(self, library: Any) -> None:
        """A RANDOM entry's generator set as the other library's (`library`: torch or tg)."""
        if self.seeded:
            library.manual_seed(SEED)


# ---- reading PyTorch's callables -----------------------------------------------------------
def _is_lambda(fn: Any) -> bool:
    return isinstance(fn, types.FunctionType) and fn.__name__ == "<lambda>"


def _tensor_method_name(fn: Any) -> str | None:
    """ "add" for Tensor.add (a method of torch.Tensor or its C base); None otherwise."""
    qualname = getattr(fn, "__qualname__", "") or ""
    owner, _, name = qualname.rpartition(".")
    if owner in ("TensorBase", "Tensor", "_TensorBase") and name:
        return name
    return None


def _torch_path(fn: Any, name: str) -> str | None:
    """The path under `torch` at which `fn` is spelled `name` ("nn.functional.relu"), if it is."""
    found: Any = torch
    for part in name.removeprefix("torch.").split("."):
        found = getattr(found, part, None)
        if found is None:
            return None
    return name.removeprefix("torch.") if found is fn else None


def _reads(code: types.CodeType) -> tuple[list[str], list[str]]:
    """The `torch.<path>`s a lambda reads, and the attributes it reads of its arguments (lambdas
    inside it included)."""
    paths: list[str] = []
    attributes: list[str] = []
    for inner in code.co_consts:
        if isinstance(inner, types.CodeType):
            more_paths, more_attributes = _reads(inner)
            paths += more_paths
            attributes += more_attributes
    chain: list[str] | None = None
    for ins in dis.get_instructions(code):
        if ins.opname in ("LOAD_ATTR", "LOAD_METHOD"):
            (chain if chain is not None else attributes).append(str(ins.argval))
            continue
        if chain:
            paths.append(".".join(chain))
        chain = [] if ins.opname == "LOAD_GLOBAL" and ins.argval == "torch" else None
    return paths, attributes


SEED = 42  # (PyTorch's wrapper_set_seed's)


def _seeded(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    tg.manual_seed(SEED)  # (PyTorch's wrapper_set_seed: the same seed before each random call)
    return fn(*args, **kwargs)


@cache
def _as_tapegrad(fn: types.FunctionType) -> types.FunctionType:
    """PyTorch's lambda as written, with `torch` meaning tapegrad."""
    names = dict(fn.__globals__)
    names["torch"] = tg
    names["wrapper_set_seed"] = _seeded
    return types.FunctionType(fn.__code__, names, fn.__name__, fn.__defaults__, fn.__closure__)


def _lambda_missing(fn: types.FunctionType) -> str:
    """The first name a lambda reads that tapegrad lacks ("" when it has them all)."""
    paths, attributes = _reads(fn.__code__)
    for path in paths:
        try:
            tapegrad_name(path)
        except MissingName as missing:
            return missing.name
    for attribute in attributes:
        if not hasattr(tg.Tensor, attribute):
            return f"Tensor.{attribute}"
    return ""


def _method(kind: str, fn: Any, name: str) -> Variant:
    def call(x: Any, *args: Any, **kwargs: Any) -> Any:
        return getattr(x, name)(*args, **kwargs)

    there = hasattr(tg.Tensor, name)
    return Variant(
        kind, f"Tensor.{name}", fn, call if there else None, "" if there else f"Tensor.{name}"
    )


def _variant(kind: str, fn: Any, name: str) -> Variant | None:
    """The variant `fn` (as the OpInfo calls it) with its tapegrad counterpart; None when PyTorch
    spells it in a way this harness cannot read (then it is not measured)."""
    if fn is None:
        return None
    if _is_lambda(fn):
        missing = _lambda_missing(fn)
        spelling = f"{kind} of {name} (PyTorch's lambda)"
        return Variant(kind, spelling, fn, None if missing else _as_tapegrad(fn), missing)
    method = _tensor_method_name(fn)
    if method is not None:
        return _method(kind if kind != "function" else "method", fn, method)
    if isinstance(fn, types.BuiltinFunctionType) and getattr(fn, "__module__", "") in (
        "_operator",
        "operator",
    ):
        dunder = f"__{fn.__name__.strip('_')}__"
        there = kind == "in-place operator" or hasattr(tg.Tensor, dunder)
        return Variant(
            kind,
            f"operator.{fn.__name__}",
            fn,
            fn if there else None,
            "" if there else f"Tensor.{dunder}",
        )
    path = _torch_path(fn, name)
    if path is None:
        return None
    target = RENAMES.get(name, path)
    try:
        return Variant(kind, f"torch.{path}", fn, tapegrad_name(target))
    except MissingName as missing:
        return Variant(kind, f"torch.{path}", fn, None, missing.name)


def op_entry(info: Any) -> OpEntry | None:
    """An OpInfo's entry, or None when tapegrad has none of its variants."""
    found: list[Variant] = []
    sources = [(info.name, info.op, info.method_variant, info.inplace_variant)]
    sources += [(a.name, a.op, a.method_variant, a.inplace_variant) for a in info.aliases]
    for name, function, method, inplace in sources:
        found.append(_variant("function", function, name))
        found.append(_variant("method", method, name))
        found.append(_variant("in-place", inplace, name))
    found.append(_variant("operator", info.operator_variant, info.name))
    found.append(_variant("in-place operator", info.inplace_operator_variant, info.name))
    variants: list[Variant] = []
    for v in found:  # (the function is often the method itself: `__radd__`, `item`)
        if v is not None and all(v.torch_fn is not w.torch_fn for w in variants):
            variants.append(v)
    if not any(v.tapegrad_fn is not None for v in variants):
        return None
    name = info.name + (f".{info.variant_test_name}" if info.variant_test_name else "")
    tolerance = TOLERANCES.get(info.name)
    return OpEntry(
        name,
        info,
        tuple(variants),
        info.name not in UNINITIALIZED,
        tolerance,
        seeded=info.name in RANDOM,
    )


def op_entries(op_db: list[Any]) -> list[OpEntry]:
    """Every OpInfo tapegrad has a counterpart for, in op_db's order."""
    return [e for e in (op_entry(info) for info in op_db) if e is not None]


def _missing(name: str) -> Callable[..., Any]:
    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise MissingName(name)

    return refuse


@cache
def scheduler_as_tapegrad(fn: types.FunctionType) -> types.FunctionType:
    """PyTorch's `lambda opt: StepLR(opt, ...)` with tapegrad's scheduler of that name."""
    names = dict(fn.__globals__)
    for name in fn.__code__.co_names:
        if hasattr(torch.optim.lr_scheduler, name):
            ours = getattr(tg.optim.lr_scheduler, name, None)
            names[name] = ours or _missing(f"tg.optim.lr_scheduler.{name}")
    return types.FunctionType(fn.__code__, names, fn.__name__, fn.__defaults__, fn.__closure__)


def module_class(info: Any) -> Any:
    """tapegrad's class for a ModuleInfo (`tg.nn.Linear`), or None."""
    return getattr(tg.nn, info.module_cls.__name__, None)


def optimizer_class(info: Any) -> Any:
    """tapegrad's class for an OptimizerInfo (`tg.optim.Adam`), or None."""
    return getattr(tg.optim, info.optim_cls.__name__, None)
