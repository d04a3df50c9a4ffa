"""Module (alias Cell): registers Parameters and sub-modules on attribute assignment; Sequential, ModuleList.

Layer L5: imports tensor.py, dtypes and nn/parameter.py. Parameter names are dotted paths (`fc.weight`);
`__call__` runs `forward` (PyTorch) or `construct` (MindSpore).
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any, Callable, Iterable, Iterator, NamedTuple

import numpy as np

from .. import dtypes as _dt
from ..tensor import Tensor, _to_dtype
from .bprop import call_with_bprop
from .parameter import Parameter


class LoadResult(NamedTuple):
    """What load_state_dict(strict=False) could not match (as PyTorch's _IncompatibleKeys)."""

    missing_keys: list
    unexpected_keys: list


class Module:
    """Base class of layers and models: assign Parameters and Modules as attributes, define forward.

    >>> class Net(tg.nn.Module):
    ...     def __init__(self): super().__init__(); self.fc = tg.nn.Linear(3, 1)
    ...     def forward(self, x): return self.fc(x)
    >>> [name for name, _ in Net().named_parameters()]
    ['fc.weight', 'fc.bias']
    """

    def __init__(self) -> None:
        # object.__setattr__: these three must exist before our __setattr__ can register anything.
        object.__setattr__(self, "_parameters", OrderedDict())
        object.__setattr__(self, "_modules", OrderedDict())
        object.__setattr__(self, "training", True)

    # ---- registration -------------------------------------------------------------------------
    def __setattr__(self, name: str, value: Any) -> None:
        params, modules = self.__dict__.get("_parameters"), self.__dict__.get("_modules")
        if params is None and isinstance(value, (Parameter, Module)):
            raise RuntimeError(
                f"cannot assign {type(value).__name__} '{name}' before Module.__init__() ran; call "
                f"super().__init__() at the start of {type(self).__name__}.__init__"
            )
        if (
            params is not None
            and name in params
            and value is not None
            and not isinstance(value, Parameter)
        ):
            raise TypeError(
                f"cannot assign a {type(value).__name__} to parameter '{name}' (a Parameter or None is "
                f"expected); to change its values use self.{name}.set_data(...), or wrap it: nn.Parameter(...)"
            )
        if params is not None:
            for registry in (params, modules):
                registry.pop(name, None)
            self.__dict__.pop(name, None)
        if isinstance(value, Parameter):
            params[name] = value
            if value._auto_name and value._name is None:
                value._name = name
        elif isinstance(value, Module):
            modules[name] = value
            for _ in value.named_parameters(prefix=name):  # `weight` becomes `fc.weight`
                pass
        else:
            object.__setattr__(self, name, value)

    def __getattr__(self, name: str) -> Any:
        # Only called when normal lookup fails: registered parameters and modules live in the dicts.
        for registry in ("_parameters", "_modules"):
            found = self.__dict__.get(registry)
            if found is not None and name in found:
                return found[name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __delattr__(self, name: str) -> None:
        for registry in (self._parameters, self._modules):
            if name in registry:
                del registry[name]
                return
        object.__delattr__(self, name)

    def register_parameter(self, name: str, param: Parameter | None) -> None:
        """Register `param` under `name` (None keeps the slot, e.g. a layer without bias)."""
        if param is None:
            self._parameters.pop(name, None)
            object.__setattr__(self, name, None)
        else:
            setattr(self, name, param)

    def add_module(self, name: str, module: "Module") -> None:
        """Register a sub-module under `name` (for names that are not identifiers, like "0")."""
        if not isinstance(module, Module):
            raise TypeError(
                f"add_module expects a Module, got {type(module).__name__}; use a layer "
                f"object (e.g. tg.nn.ReLU(), not tg.relu)"
            )
        setattr(self, name, module)

    # ---- running ------------------------------------------------------------------------------
    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if hasattr(type(self), "bprop"):  # MindSpore: the Cell's own backward replaces the tape's
            return call_with_bprop(self, args, kwargs)
        return self.forward(*args, **kwargs)

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        """The computation; MindSpore-style subclasses define `construct` instead."""
        construct = getattr(self, "construct", None)
        if construct is None:
            raise NotImplementedError(
                f"{type(self).__name__} defines neither forward() nor construct(); add one of them"
            )
        return construct(*args, **kwargs)

    # ---- traversal ----------------------------------------------------------------------------
    def named_parameters(
        self, prefix: str = "", recurse: bool = True
    ) -> Iterator[tuple[str, Parameter]]:
        """(dotted name, parameter) pairs, each parameter once: a module's own parameters in the order
        they were assigned, then each sub-module's (the order PyTorch and MindSpore use)."""
        seen: set[int] = set()
        modules = self.named_modules(prefix) if recurse else iter([(prefix, self)])
        for mod_prefix, module in modules:
            for name, p in module._parameters.items():
                if id(p) in seen:
                    continue
                seen.add(id(p))
                path = f"{mod_prefix}.{name}" if mod_prefix else name
                # An automatic name only ever grows (`weight` -> `fc.weight`), so listing the
                # parameters of a sub-module never shortens the name its parent gave.
                if p._auto_name and (p._name is None or path.endswith("." + p._name)):
                    p._name = path
                yield path, p

    def parameters(self, recurse: bool = True) -> Iterator[Parameter]:
        """All parameters (trainable or not), in definition order."""
        return (p for _, p in self.named_parameters(recurse=recurse))

    def trainable_params(self, recurse: bool = True) -> list[Parameter]:
        """The parameters with requires_grad=True, as a list in named_parameters() order (MindSpore)."""
        return [p for p in self.parameters(recurse) if p.requires_grad]

    def get_parameters(self) -> Iterator[Parameter]:
        """MindSpore's name for parameters()."""
        return self.parameters()

    def named_modules(self, prefix: str = "") -> Iterator[tuple[str, "Module"]]:
        """(dotted name, module) for this module ("" by default) and every descendant, each once."""
        seen: set[int] = set()
        stack = [(prefix, self)]
        while stack:  # explicit stack, pre-order: parents before children, children in order
            path, module = stack.pop()
            if id(module) in seen:
                continue
            seen.add(id(module))
            yield path, module
            children = [(f"{path}.{n}" if path else n, m) for n, m in module._modules.items()]
            stack.extend(reversed(children))

    def modules(self) -> Iterator["Module"]:
        """This module and every descendant, each once."""
        return (m for _, m in self.named_modules())

    def named_children(self) -> Iterator[tuple[str, "Module"]]:
        """(name, module) of the direct sub-modules."""
        return iter(self._modules.items())

    def children(self) -> Iterator["Module"]:
        """The direct sub-modules."""
        return iter(self._modules.values())

    def apply(self, fn: Callable[["Module"], Any]) -> "Module":
        """Call fn on every sub-module, then on self (e.g. custom initialisation)."""
        for child in self.children():
            child.apply(fn)
        fn(self)
        return self

    # ---- training helpers ---------------------------------------------------------------------
    def zero_grad(self, set_to_none: bool = True) -> None:
        """Clear the gradients of all parameters (None by default, as PyTorch)."""
        for p in self.parameters():
            if set_to_none or p.grad is None:
                p.grad = None
            else:
                p.grad.numpy()[...] = 0

    def train(self, mode: bool = True) -> "Module":
        """Set `.training` on this module and all sub-modules."""
        for m in self.modules():
            object.__setattr__(m, "training", bool(mode))
        return self

    def eval(self) -> "Module":
        """train(False)."""
        return self.train(False)

    def set_train(self, mode: bool = True) -> "Module":
        """MindSpore's name for train()."""
        return self.train(mode)

    def requires_grad_(self, requires_grad: bool = True) -> "Module":
        """Freeze (False) or unfreeze every parameter; frozen ones leave trainable_params()."""
        for p in self.parameters():
            p.requires_grad = requires_grad
        return self

    def to(self, *args: Any, dtype: Any = None, device: Any = None) -> "Module":
        """Cast every parameter (and its grad) to a floating dtype, e.g. `net.to(tg.float16)`; a
        device may be given too, as in PyTorch, but only the CPU exists here (`net.to("cpu")`)."""
        dtype = _to_dtype(args, dtype, device)
        if dtype is None:
            return self
        dtype = _dt.as_dtype(dtype)
        if dtype.kind != "f":
            raise TypeError(f"parameters must stay floating point; cannot cast a Module to {dtype}")
        for p in self.parameters():
            p.data = p.numpy().astype(dtype)
            if p.grad is not None:
                p.grad = p.grad.detach().astype(dtype)
        return self

    def half(self) -> "Module":
        """Cast the parameters to float16."""
        return self.to(_dt.float16)

    def float(self) -> "Module":
        """Cast the parameters to float32."""
        return self.to(_dt.float32)

    def double(self) -> "Module":
        """Cast the parameters to float64."""
        return self.to(_dt.float64)

    # ---- checkpoints --------------------------------------------------------------------------
    def state_dict(self) -> "OrderedDict[str, Tensor]":
        """{dotted name: tensor} of copies, so a saved state does not change as training goes on."""
        return OrderedDict((name, Tensor(p.numpy())) for name, p in self.named_parameters())

    def load_state_dict(self, state_dict: dict, strict: bool = True) -> LoadResult:
        """Copy values into the parameters; with strict=True keys must match exactly. Shapes must match."""
        if not hasattr(state_dict, "keys"):
            raise TypeError(
                f"load_state_dict expects a dict {{name: tensor}} (as returned by "
                f"state_dict()), got {type(state_dict).__name__}"
            )
        own = OrderedDict(self.named_parameters())
        missing = [k for k in own if k not in state_dict]
        unexpected = [k for k in state_dict if k not in own]
        if strict and (missing or unexpected):
            raise RuntimeError(
                f"error loading state_dict into {type(self).__name__}: missing keys {missing}, "
                f"unexpected keys {unexpected}; the checkpoint must come from the same architecture "
                f"(or pass strict=False to load only the matching keys)"
            )
        values = {}
        for name, p in own.items():  # check every shape before changing anything
            if name not in state_dict:
                continue
            value = state_dict[name]
            arr = np.asarray(value.numpy() if isinstance(value, Tensor) else value)
            if arr.shape != p.shape:
                raise RuntimeError(
                    f"error loading state_dict into {type(self).__name__}: size mismatch for {name}: "
                    f"the checkpoint has shape {arr.shape}, the model has shape {p.shape}; build the "
                    f"model with the layer sizes the checkpoint was saved from"
                )
            values[name] = arr
        for name, arr in values.items():
            own[name].set_data(arr)
        return LoadResult(missing, unexpected)

    # ---- printing -----------------------------------------------------------------------------
    def extra_repr(self) -> str:
        """The layer's settings shown inside its repr, e.g. `in_features=3, out_features=1`."""
        return ""

    def __repr__(self) -> str:
        lines = [
            f"  ({name}): " + repr(m).replace("\n", "\n  ") for name, m in self._modules.items()
        ]
        if not lines:
            return f"{type(self).__name__}({self.extra_repr()})"
        head = f"{type(self).__name__}({self.extra_repr()}"
        return head + "\n" + "\n".join(lines) + "\n)"


Cell = Module


class Sequential(Module):
    """Modules run one after the other; children are named "0", "1", ... (also from a list or dict).

    >>> net = tg.nn.Sequential(tg.nn.Linear(2, 8), tg.nn.ReLU(), tg.nn.Linear(8, 1))
    """

    def __init__(self, *modules: Any) -> None:
        super().__init__()
        if len(modules) == 1 and isinstance(modules[0], dict):
            for name, m in modules[0].items():
                self.add_module(str(name), m)
            return
        if len(modules) == 1 and isinstance(modules[0], (list, tuple)):
            modules = tuple(modules[0])  # MindSpore's SequentialCell([...])
        for m in modules:
            self.append(m)

    def append(self, module: Module) -> "Sequential":
        """Add a module at the end."""
        self.add_module(str(len(self._modules)), module)
        return self

    def __getitem__(self, index: int | slice) -> Any:
        items = list(self._modules.values())
        if isinstance(index, slice):
            return Sequential(*items[index])
        return items[index]

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self) -> Iterator[Module]:
        return iter(self._modules.values())

    def forward(self, x: Any) -> Any:
        for m in self._modules.values():
            x = m(x)
        return x


SequentialCell = Sequential


class ModuleList(Module):
    """A list of sub-modules, registered as "0", "1", ... (call them yourself in forward)."""

    def __init__(self, modules: Iterable[Module] | None = None) -> None:
        super().__init__()
        self.extend(modules or [])

    def append(self, module: Module) -> "ModuleList":
        """Add a module at the end."""
        self.add_module(str(len(self._modules)), module)
        return self

    def extend(self, modules: Iterable[Module]) -> "ModuleList":
        """Append each of `modules`."""
        for m in modules:
            self.append(m)
        return self

    def __getitem__(self, index: int) -> Module:
        return list(self._modules.values())[index]

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self) -> Iterator[Module]:
        return iter(self._modules.values())


CellList = ModuleList
