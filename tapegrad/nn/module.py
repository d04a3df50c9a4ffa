"""Module (alias Cell): registers Parameters, buffers and sub-modules on attribute assignment;
Sequential, ModuleList.

Layer L5: imports tensor.py, _state and nn/parameter.py; hooks, checkpoints and casting come from
the mixins in nn/hooks.py, nn/module_state.py and nn/module_casting.py. Parameter names are
dotted paths (`fc.weight`); `__call__` runs `forward` (PyTorch) or `construct` (MindSpore).
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any, Callable, Iterable, Iterator

from .._state import modules_running, state
from ..tensor import Tensor
from ..compat.cell_bprop import call_with_bprop
from .hooks import HooksMixin, call_with_hooks
from .module_casting import CastingMixin
from .module_state import CheckpointMixin
from .parameter import Buffer, Parameter


class Module(HooksMixin, CheckpointMixin, CastingMixin):
    """Base class of layers and models: assign Parameters and Modules as attributes, define forward.

    >>> class Net(tg.nn.Module):
    ...     def __init__(self): super().__init__(); self.fc = tg.nn.Linear(3, 1)
    ...     def forward(self, x): return self.fc(x)
    >>> [name for name, _ in Net().named_parameters()]
    ['fc.weight', 'fc.bias']
    """

    # MindSpore: a Cell may define `bprop(self, *inputs, out, dout)`, its own backward
    # (compat/cell_bprop.py); None here, so __call__ tests it without a failing lookup.
    bprop: Any = None
    # Whether hooks are registered (nn/hooks.py keeps it); the class default serves modules made
    # without __init__ (unpickled from an older version).
    _hooked: bool = False

    def __init__(self) -> None:
        # object.__setattr__: these must exist before our __setattr__ can register anything.
        object.__setattr__(self, "_parameters", OrderedDict())
        object.__setattr__(self, "_buffers", OrderedDict())
        object.__setattr__(self, "_non_persistent_buffers_set", set())
        object.__setattr__(self, "_modules", OrderedDict())
        object.__setattr__(self, "training", True)
        object.__setattr__(self, "_hooked", False)  # (in __dict__: __call__'s cheapest read)

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
                f"cannot assign a {type(value).__name__} to parameter '{name}' (a Parameter or "
                f"None is expected); to change its values use self.{name}.set_data(...), or wrap "
                f"it: nn.Parameter(...)"
            )
        if isinstance(value, Buffer):  # (nn.Buffer: registered, with its own persistence)
            self.register_buffer(name, value, value.persistent)
            return
        if params is None:  # (during __init__, before the registries exist: a plain attribute)
            object.__setattr__(self, name, value)
            return
        modules, buffers = self._modules, self._buffers
        if name in buffers and not isinstance(value, (Parameter, Module)):
            self._set_buffer(name, value)  # (as PyTorch: assigning to a buffer's name updates it)
            return
        # leave the registry that receives the value alone: a replaced parameter or module keeps
        # its place in the order (as PyTorch)
        keep = params if isinstance(value, Parameter) else modules
        for registry in (params, modules, buffers):
            if registry is not keep or not isinstance(value, (Parameter, Module)):
                registry.pop(name, None)
        self._non_persistent_buffers_set.discard(name)
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
        # Only called when normal lookup fails: registered parameters, buffers and modules live in
        # the dicts.
        for registry in ("_parameters", "_buffers", "_modules"):
            found = self.__dict__.get(registry)
            if found is not None and name in found:
                return found[name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __delattr__(self, name: str) -> None:
        for registry in (self._parameters, self._buffers, self._modules):
            if name in registry:
                del registry[name]
                self._non_persistent_buffers_set.discard(name)
                return
        object.__delattr__(self, name)

    def register_buffer(self, name: str, tensor: Tensor | None, persistent: bool = True) -> None:
        """Register a tensor that is state but not a parameter (e.g. BatchNorm's running_mean): it
        is listed by buffers(), saved in state_dict() if `persistent`, and cast by to().

        >>> m = tg.nn.Module(); m.register_buffer("steps", tg.zeros(1)); list(m.state_dict())
        ['steps']
        """
        if "_buffers" not in self.__dict__:
            raise AttributeError(
                f"cannot register buffer {name!r} before Module.__init__() ran; call "
                f"super().__init__() at the start of {type(self).__name__}.__init__"
            )
        if not isinstance(name, str):
            raise TypeError(f"buffer name should be a string, got {type(name).__name__}")
        if "." in name or name == "":
            raise KeyError(
                f"buffer name {name!r} is not allowed: it must be non-empty and contain no '.' "
                f"(dots separate sub-module names in state_dict keys)"
            )
        if hasattr(self, name) and name not in self._buffers:
            raise KeyError(
                f"attribute {name!r} already exists on {type(self).__name__}; register the buffer "
                f"under another name (or delete the attribute first)"
            )
        self._set_buffer(name, tensor)
        if persistent:
            self._non_persistent_buffers_set.discard(name)
        else:
            self._non_persistent_buffers_set.add(name)

    def _set_buffer(self, name: str, tensor: Any) -> None:
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(
                f"cannot assign a {type(tensor).__name__} to buffer {name!r} (a tapegrad Tensor or "
                f"None is required); wrap the values first: tg.tensor(...)"
            )
        self._buffers[name] = tensor

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
        if not isinstance(name, str):
            raise TypeError(f"module name should be a string, got {type(name).__name__}")
        if "." in name or name == "":
            raise KeyError(
                f"module name {name!r} is not allowed: it must be non-empty and contain no '.'"
            )
        if hasattr(self, name) and name not in self._modules:
            raise KeyError(
                f"attribute {name!r} already exists on {type(self).__name__}; register the "
                f"module under another name"
            )
        setattr(self, name, module)

    register_module = add_module  # (PyTorch's other name for it)

    # ---- running ------------------------------------------------------------------------------
    # (typed as what nearly every forward returns, so `net(x)` is a Tensor to a type checker; a
    # forward returning a tuple, as MaxPool2d(return_indices=True), still unpacks as Tensors)
    def __call__(self, *args: Any, **kwargs: Any) -> Tensor:
        if self._hooked:  # (one attribute read is all a module without hooks pays for them)
            return call_with_hooks(self, args, kwargs, self._call_forward)
        return self._call_forward(args, kwargs)

    def _call_forward(self, args: tuple, kwargs: dict) -> Any:
        # Nodes recorded inside remember this module (drawings group by it): the thread's scope
        # grows by it, and the first module a thread enters counts it in modules_running (the
        # ops' cue to read the scope at all). Written here, not in helpers: every module call
        # of every model runs it (two Python calls less each).
        previous = state.scope
        if not previous:
            modules_running.append(True)
        state.scope = previous + (self,)
        try:
            if type(self).bprop is not None:  # MindSpore: the Cell's own backward is used
                return call_with_bprop(self, args, kwargs)
            return self.forward(*args, **kwargs)
        finally:
            state.scope = previous
            if not previous:
                modules_running.pop()

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        """The computation; MindSpore-style subclasses define `construct` instead."""
        construct = getattr(self, "construct", None)
        if construct is None:
            raise NotImplementedError(
                f"{type(self).__name__} defines neither forward() nor construct(); add one of them"
            )
        return construct(*args, **kwargs)

    # ---- traversal ----------------------------------------------------------------------------
    def _named_members(
        self, registry: str, prefix: str, recurse: bool, remove_duplicate: bool
    ) -> Iterator[tuple[str, Any]]:
        """(dotted name, tensor) from each module's `_parameters` or `_buffers`: a module's own in
        the order they were assigned, then each sub-module's (the order PyTorch uses)."""
        seen: set[int] = set()
        modules = (
            self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate)
            if recurse
            else iter([(prefix, self)])
        )
        for mod_prefix, module in modules:
            for name, t in getattr(module, registry).items():
                if t is None or remove_duplicate and id(t) in seen:
                    continue
                seen.add(id(t))
                yield (f"{mod_prefix}.{name}" if mod_prefix else name), t

    def named_parameters(
        self, prefix: str = "", recurse: bool = True, remove_duplicate: bool = True
    ) -> Iterator[tuple[str, Parameter]]:
        """(dotted name, parameter) pairs, each parameter once: a module's own parameters in the
        order they were assigned, then each sub-module's (the order PyTorch and MindSpore use)."""
        for path, p in self._named_members("_parameters", prefix, recurse, remove_duplicate):
            # An automatic name only ever grows (`weight` -> `fc.weight`), so listing the
            # parameters of a sub-module never shortens the name its parent gave.
            if p._auto_name and (p._name is None or path.endswith("." + p._name)):
                p._name = path
            yield path, p

    def parameters(self, recurse: bool = True) -> Iterator[Parameter]:
        """All parameters (trainable or not), in definition order."""
        return (p for _, p in self.named_parameters(recurse=recurse))

    def named_buffers(
        self, prefix: str = "", recurse: bool = True, remove_duplicate: bool = True
    ) -> Iterator[tuple[str, Tensor]]:
        """(dotted name, buffer) pairs, in the order of named_parameters() (e.g. `bn.running_mean`).

        >>> [n for n, _ in tg.nn.BatchNorm1d(3).named_buffers()]
        ['running_mean', 'running_var', 'num_batches_tracked']
        """
        return self._named_members("_buffers", prefix, recurse, remove_duplicate)

    def buffers(self, recurse: bool = True) -> Iterator[Tensor]:
        """All buffers (persistent or not), in named_buffers() order."""
        return (b for _, b in self.named_buffers(recurse=recurse))

    def trainable_params(self, recurse: bool = True) -> list[Parameter]:
        """The parameters with requires_grad=True, in named_parameters() order (MindSpore)."""
        return [p for p in self.parameters(recurse) if p.requires_grad]

    def get_parameters(self) -> Iterator[Parameter]:
        """MindSpore's name for parameters()."""
        return self.parameters()

    def named_modules(
        self, memo: set | None = None, prefix: str = "", remove_duplicate: bool = True
    ) -> Iterator[tuple[str, "Module"]]:
        """(dotted name, module) for this module ("" by default) and every descendant, parents
        first; a module reachable by several paths comes once unless remove_duplicate=False.

        >>> [n for n, _ in tg.nn.Sequential(tg.nn.Linear(2, 2), tg.nn.ReLU()).named_modules()]
        ['', '0', '1']
        """
        seen = memo if memo is not None else set()
        stack = [(prefix, self)]
        while stack:  # explicit stack, pre-order: parents before children, children in order
            path, module = stack.pop()
            if remove_duplicate:
                if module in seen:
                    continue
                seen.add(module)
            yield path, module
            children = [(f"{path}.{n}" if path else n, m) for n, m in module._modules.items()]
            stack.extend(reversed(children))

    def modules(self) -> Iterator["Module"]:
        """This module and every descendant, each once."""
        return (m for _, m in self.named_modules())

    def named_children(self) -> Iterator[tuple[str, "Module"]]:
        """(name, module) of the direct sub-modules, each module once (under its first name)."""
        seen: set[int] = set()
        for name, module in self._modules.items():
            if id(module) not in seen:
                seen.add(id(module))
                yield name, module

    def children(self) -> Iterator["Module"]:
        """The direct sub-modules, each once."""
        return (m for _, m in self.named_children())

    def apply(self, fn: Callable[["Module"], Any]) -> "Module":
        """Call fn on every sub-module, then on self (e.g. custom initialisation)."""
        for child in self.children():
            child.apply(fn)
        fn(self)
        return self

    def get_submodule(self, target: str) -> "Module":
        """The sub-module at dotted path `target` ("" is self); AttributeError if there is none.

        >>> tg.nn.Sequential(tg.nn.Linear(2, 2)).get_submodule("0")
        Linear(in_features=2, out_features=2, bias=True)
        """
        module: Module = self
        for item in target.split(".") if target else []:
            if not hasattr(module, item):
                raise AttributeError(f"{type(module).__name__} has no attribute `{item}`")
            module = getattr(module, item)
            if not isinstance(module, Module):
                raise AttributeError(f"`{item}` is not an nn.Module")
        return module

    def set_submodule(self, target: str, module: "Module", strict: bool = False) -> None:
        """Put `module` at dotted path `target` (whose parent must exist); strict=True: only
        replace an existing sub-module.

        >>> net = tg.nn.Sequential(tg.nn.Linear(2, 2)); net.set_submodule("0", tg.nn.Tanh())
        """
        if target == "":
            raise ValueError("Cannot set the submodule without a target name!")
        if not isinstance(module, Module):
            raise ValueError(f"`module` is not an nn.Module, found {type(module)}")
        parent_path, _, name = target.rpartition(".")
        parent = self.get_submodule(parent_path)
        if strict and not hasattr(parent, name):
            raise AttributeError(f"{type(parent).__name__} has no attribute `{name}`")
        if hasattr(parent, name) and not isinstance(getattr(parent, name), Module):
            raise AttributeError(f"`{name}` is not an nn.Module")
        setattr(parent, name, module)

    def get_parameter(self, target: str) -> Parameter:
        """The parameter at dotted path `target` (e.g. "fc.weight"); AttributeError if none.

        >>> tg.nn.Linear(2, 1).get_parameter("bias").shape
        (1,)
        """
        module_path, _, name = target.rpartition(".")
        module = self.get_submodule(module_path)
        if not hasattr(module, name):
            raise AttributeError(f"{type(module).__name__} has no attribute `{name}`")
        param = getattr(module, name)
        if not isinstance(param, Parameter):
            raise AttributeError(f"`{name}` is not an nn.Parameter")
        return param

    def get_buffer(self, target: str) -> Tensor:
        """The buffer at dotted path `target` (e.g. "bn.running_mean"); AttributeError if none.

        >>> tg.nn.BatchNorm1d(2).get_buffer("running_var").tolist()
        [1.0, 1.0]
        """
        module_path, _, name = target.rpartition(".")
        module = self.get_submodule(module_path)
        if not hasattr(module, name):
            raise AttributeError(f"{type(module).__name__} has no attribute `{name}`")
        if name not in module._buffers:
            raise AttributeError(f"`{name}` is not a buffer")
        return getattr(module, name)

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

    # ---- printing -----------------------------------------------------------------------------
    def extra_repr(self) -> str:
        """The layer's settings shown inside its repr, e.g. `in_features=3, out_features=1`."""
        return ""

    def __repr__(self) -> str:
        # PyTorch's layout: a one-line extra_repr inline; otherwise one line per setting and child
        extra = self.extra_repr().split("\n") if self.extra_repr() else []
        children = [
            f"({name}): " + repr(m).replace("\n", "\n  ") for name, m in self._modules.items()
        ]
        if len(extra) == 1 and not children:
            return f"{type(self).__name__}({extra[0]})"
        if not extra and not children:
            return f"{type(self).__name__}()"
        return f"{type(self).__name__}(\n  " + "\n  ".join(extra + children) + "\n)"


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

    def forward(self, input: Any) -> Any:
        for m in self._modules.values():
            input = m(input)
        return input


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

    def __repr__(self) -> str:
        # PyTorch's layout: a run of children that print alike is one entry, "(0-2): 3 x Block(...)"
        runs: list[list[Any]] = []  # [first index, last index, repr]
        for i, m in enumerate(self):
            text = repr(m)
            if runs and runs[-1][2] == text:
                runs[-1][1] = i
            else:
                runs.append([i, i, text])
        if not runs:
            return f"{type(self).__name__}()"
        lines = [
            (f"({a}): " if a == b else f"({a}-{b}): {b - a + 1} x ") + text.replace("\n", "\n  ")
            for a, b, text in runs
        ]
        return f"{type(self).__name__}(\n  " + "\n  ".join(lines) + "\n)"


CellList = ModuleList
