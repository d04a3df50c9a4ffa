"""torch.nn.utils.parametrize: a module's parameter or buffer computed by modules from the
stored original(s) at each access (register_parametrization, remove_parametrizations,
is_parametrized, cached, type_before_parametrizations, transfer_parametrizations_and_params).

As PyTorch's: the first registration gives the module a subclass of its own (Parametrized<Name>)
holding a property per parametrized name, and a ModuleDict `parametrizations` whose
ParametrizationList per name holds `original` (or original0, original1, ... when the first
right_inverse returns several tensors); state_dict keys are `parametrizations.<name>.original`.
Each access runs the parametrizations on the tape (gradients reach the originals); within
`cached()`, once per module and name.

Layer L5: imports tensor.py, the nn module, containers and Parameter, and the tape's grad mode.
"""

from __future__ import annotations

import copyreg
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from copy import deepcopy
from typing import Any

from ..._state import no_grad
from ...tensor import Tensor
from ..containers import ModuleDict
from ..module import Module, ModuleList
from ..parameter import Parameter

_cache_enabled = 0
_cache: dict[tuple[int, str], Tensor] = {}


@contextmanager
def cached() -> Iterator[None]:
    """Within this block each parametrized tensor is computed once (at its first access) and
    reused: one forward of a model that reads a parametrized weight several times.

    >>> with tg.nn.utils.parametrize.cached():
    ...     out = model(x)  # doctest: +SKIP
    """
    global _cache_enabled, _cache
    _cache_enabled += 1
    try:
        yield
    finally:
        _cache_enabled -= 1
        if not _cache_enabled:
            _cache = {}


def _register_parameter_or_buffer(module: Module, name: str, value: Tensor) -> None:
    if isinstance(value, Parameter):
        module.register_parameter(name, value)
    else:
        module.register_buffer(name, value)


def _maybe_set(dest: Tensor, src: Tensor) -> None:
    """dest takes src's values (and memory), keeping its identity: PyTorch's dest.set_(src)."""
    dest.data = src


def _check_result(value: Any, dtype: Any, shape: tuple, what: str, returned: str) -> None:
    if not isinstance(value, Tensor):
        raise ValueError(f"A parametrization must return a tensor. Got {type(value).__name__}.")
    if value.dtype != dtype:
        raise ValueError(
            f"Registering a parametrization may not change the dtype of the tensor, unless the "
            f"`unsafe` flag is enabled.\n{what}.dtype: {dtype}\n{returned}.dtype: {value.dtype}"
        )
    if tuple(value.shape) != tuple(shape):
        raise ValueError(
            f"Registering a parametrization may not change the shape of the tensor, unless the "
            f"`unsafe` flag is enabled.\n{what}.shape: {tuple(shape)}\n{returned}.shape: "
            f"{tuple(value.shape)}"
        )


class ParametrizationList(ModuleList):
    """The parametrizations of one tensor, in order, with the stored original(s): calling it
    computes the parametrized tensor; right_inverse(value) stores what gives value.

    >>> plist = model.parametrizations["weight"]  # doctest: +SKIP
    """

    def __init__(self, modules: Sequence[Module], original: Tensor, unsafe: bool = False) -> None:
        if len(modules) == 0:
            raise ValueError("ParametrizationList requires one or more modules.")
        super().__init__(modules)
        self.unsafe = unsafe
        shape, dtype = tuple(original.shape), original.dtype
        new: Any = original
        with no_grad():
            for module in reversed(list(self)):
                if hasattr(module, "right_inverse"):
                    try:
                        new = module.right_inverse(new)
                    except NotImplementedError:
                        pass
        if not isinstance(new, (Tensor, Sequence)):
            raise ValueError(
                "'right_inverse' must return a Tensor or a Sequence of tensors (list, tuple...). "
                f"Got {type(new).__name__}"
            )
        self.is_tensor = isinstance(new, Tensor)
        self.ntensors = 1 if self.is_tensor else len(new)
        if isinstance(new, Tensor):
            if original.dtype != new.dtype:
                raise ValueError(
                    "When `right_inverse` outputs one tensor, it may not change the dtype.\n"
                    f"original.dtype: {original.dtype}\n"
                    f"right_inverse(original).dtype: {new.dtype}"
                )
            with no_grad():
                _maybe_set(original, new)
            _register_parameter_or_buffer(self, "original", original)
        else:
            for i, piece in enumerate(new):
                if not isinstance(piece, Tensor):
                    raise ValueError(
                        "'right_inverse' must return a Tensor or a Sequence of tensors (list, "
                        f"tuple...). Got element {i} of the sequence with type "
                        f"{type(piece).__name__}."
                    )
                if isinstance(original, Parameter):
                    piece = Parameter(piece.detach(), requires_grad=original.requires_grad)
                else:
                    piece = piece.detach().requires_grad_(original.requires_grad)
                _register_parameter_or_buffer(self, f"original{i}", piece)
        if not self.unsafe:
            _check_result(self(), dtype, shape, "unparametrized", "parametrized")

    def right_inverse(self, value: Tensor) -> None:
        """Store the original(s) whose parametrization is value (each module's right_inverse,
        last to first).

        >>> model.parametrizations["weight"].right_inverse(tg.eye(3))  # doctest: +SKIP
        """
        result: Any = value
        with no_grad():
            for module in reversed(list(self)):
                if not hasattr(module, "right_inverse"):
                    raise RuntimeError(
                        f"parametrization {type(module).__name__} does not implement right_inverse."
                    )
                result = module.right_inverse(result)
            if self.is_tensor:
                if not isinstance(result, Tensor):
                    raise ValueError(
                        f"`right_inverse` should return a tensor. Got {type(result).__name__}"
                    )
                if result.dtype != self.original.dtype:
                    raise ValueError(
                        f"The tensor returned by `right_inverse` has dtype {result.dtype} while "
                        f"`original` has dtype {self.original.dtype}"
                    )
                _maybe_set(self.original, result)
                return
            if not isinstance(result, Sequence):
                raise ValueError(
                    "'right_inverse' must return a sequence of tensors. "
                    f"Got {type(result).__name__}."
                )
            if len(result) != self.ntensors:
                raise ValueError(
                    "'right_inverse' must return a sequence of tensors of length "
                    f"{self.ntensors}. Got a sequence of length {len(result)}."
                )
            for i, tensor in enumerate(result):
                original_i = getattr(self, f"original{i}")
                if not isinstance(tensor, Tensor):
                    raise ValueError(
                        f"'right_inverse' must return a sequence of tensors. Got element {i} of "
                        f"type {type(tensor).__name__}."
                    )
                if original_i.dtype != tensor.dtype:
                    raise ValueError(
                        f"Tensor {i} returned by `right_inverse` has dtype {tensor.dtype} while "
                        f"`original{i}` has dtype {original_i.dtype}"
                    )
                _maybe_set(original_i, tensor)

    def forward(self) -> Tensor:
        """The parametrized tensor: the first module on the original(s), then each next one."""
        modules = list(self)
        if self.is_tensor:
            x = modules[0](self.original)
        else:
            x = modules[0](*(getattr(self, f"original{i}") for i in range(self.ntensors)))
        for module in modules[1:]:
            x = module(x)
        return x


def _default_deepcopy(self: Module, memo: dict) -> Module:
    found = memo.get(id(self))
    if found is not None:
        return found
    replica = self.__new__(self.__class__)
    memo[id(self)] = replica
    replica.__dict__ = deepcopy(self.__dict__, memo)
    for slot in copyreg._slotnames(self.__class__):  # type: ignore[attr-defined]
        if hasattr(self, slot):
            setattr(replica, slot, deepcopy(getattr(self, slot), memo))
    return replica


def _getstate(self: Module) -> Any:
    raise RuntimeError(
        "Serialization of parametrized modules is only supported through state_dict(). See:\n"
        "https://pytorch.org/tutorials/beginner/saving_loading_models.html"
        "#saving-loading-a-general-checkpoint-for-inference-and-or-resuming-training"
    )


def _setattr(self: Module, name: str, value: Any) -> None:
    """A parametrized name is set through its property (right_inverse), as PyTorch's."""
    if isinstance(getattr(type(self), name, None), property):
        if isinstance(value, Parameter):
            raise KeyError(f"attribute '{name}' already exists")
        object.__setattr__(self, name, value)
        return
    super(type(self), self).__setattr__(name, value)  # (the class before parametrization)


def _inject_new_class(module: Module) -> None:
    cls = module.__class__
    namespace: dict[str, Any] = {"__getstate__": _getstate, "__setattr__": _setattr}
    if not hasattr(cls, "__deepcopy__"):
        namespace["__deepcopy__"] = _default_deepcopy
    module.__class__ = type(f"Parametrized{cls.__name__}", (cls,), namespace)


def _inject_property(module: Module, tensor_name: str) -> None:
    if hasattr(module, tensor_name):
        raise AssertionError(f"Module already has an attribute named '{tensor_name}'")

    def get_parametrized(self: Module) -> Tensor:
        parametrization = self.parametrizations[tensor_name]
        if not _cache_enabled:
            return parametrization()
        key = (id(self), tensor_name)
        tensor = _cache.get(key)
        if tensor is None:
            tensor = _cache[key] = parametrization()
        return tensor

    def set_original(self: Module, value: Tensor) -> None:
        self.parametrizations[tensor_name].right_inverse(value)

    setattr(module.__class__, tensor_name, property(get_parametrized, set_original))


def register_parametrization(
    module: Module, tensor_name: str, parametrization: Module, *, unsafe: bool = False
) -> Module:
    """Make module.<tensor_name> (a parameter or buffer) the result of parametrization on a
    stored original (a second registration on the same name chains after the first).

    >>> class Symmetric(tg.nn.Module):
    ...     def forward(self, X):
    ...         return X.triu() + X.triu(1).T
    >>> m = tg.nn.utils.parametrize.register_parametrization(tg.nn.Linear(3, 3), "weight",
    ...                                                      Symmetric())  # doctest: +SKIP
    """
    parametrization.train(module.training)
    if is_parametrized(module, tensor_name):
        if not unsafe:
            current = getattr(module, tensor_name)
            result = parametrization(current)
            what, returned = f"module.{tensor_name}", f"parametrization(module.{tensor_name})"
            _check_result(result, current.dtype, current.shape, what, returned)
            if hasattr(parametrization, "right_inverse"):
                try:
                    inverse = parametrization.right_inverse(result)
                except NotImplementedError:
                    pass
                else:
                    returned = "parametrization.right_inverse(...)"
                    _check_result(inverse, current.dtype, current.shape, what, returned)
        plist = module.parametrizations[tensor_name]
        plist.append(parametrization)
        plist.unsafe |= unsafe
    elif tensor_name in module._buffers or tensor_name in module._parameters:
        original = getattr(module, tensor_name)
        plist = ParametrizationList([parametrization], original, unsafe=unsafe)
        delattr(module, tensor_name)
        if not is_parametrized(module):
            _inject_new_class(module)
            module.parametrizations = ModuleDict()
        _inject_property(module, tensor_name)
        module.parametrizations[tensor_name] = plist
    else:
        raise ValueError(
            f"Module '{module}' does not have a parameter, a buffer, or a parametrized element "
            f"with name '{tensor_name}'"
        )
    return module


def is_parametrized(module: Module, tensor_name: str | None = None) -> bool:
    """Whether module has a parametrization (on tensor_name, when given).

    >>> tg.nn.utils.parametrize.is_parametrized(tg.nn.Linear(2, 2))
    False
    """
    parametrizations = module.__dict__.get("_modules", {}).get("parametrizations")
    if not isinstance(parametrizations, ModuleDict):
        return False
    if tensor_name is None:
        return len(parametrizations) > 0
    return tensor_name in parametrizations


def remove_parametrizations(
    module: Module, tensor_name: str, leave_parametrized: bool = True
) -> Module:
    """Undo the parametrizations of tensor_name: it becomes a parameter (or buffer) again,
    holding the parametrized value (leave_parametrized=True) or the original.

    >>> tg.nn.utils.parametrize.remove_parametrizations(m, "weight")  # doctest: +SKIP
    """
    if not is_parametrized(module, tensor_name):
        raise ValueError(f"Module {module} does not have a parametrization on {tensor_name}")
    plist = module.parametrizations[tensor_name]
    if plist.is_tensor:
        original = plist.original
        if leave_parametrized:
            with no_grad():
                value = getattr(module, tensor_name)
                _maybe_set(original, value)
    else:
        if not leave_parametrized:
            raise ValueError(
                "Cannot leave unparametrized (`leave_parametrized=False`) a tensor that is "
                "parametrized in terms of a sequence of tensors."
            )
        value = getattr(module, tensor_name)
        original = Parameter(value.detach()) if value.requires_grad else value.detach()
    delattr(module.__class__, tensor_name)
    del module.parametrizations[tensor_name]
    _register_parameter_or_buffer(module, tensor_name, original)
    if not is_parametrized(module):
        delattr(module, "parametrizations")
        module.__class__ = module.__class__.__bases__[0]
    return module


def type_before_parametrizations(module: Module) -> type:
    """The module's class before parametrizations gave it its Parametrized subclass.

    >>> tg.nn.utils.parametrize.type_before_parametrizations(tg.nn.Linear(2, 2)).__name__
    'Linear'
    """
    if is_parametrized(module):
        return module.__class__.__bases__[0]
    return type(module)


def transfer_parametrizations_and_params(
    from_module: Module, to_module: Module, tensor_name: str | None = None
) -> Module:
    """Register from_module's parametrizations (of tensor_name, or all) on to_module, sharing
    their originals.

    >>> tg.nn.utils.parametrize.transfer_parametrizations_and_params(a, b)  # doctest: +SKIP
    """
    if not is_parametrized(from_module):
        return to_module
    names = list(from_module.parametrizations) if tensor_name is None else [tensor_name]
    for name in names:
        if not hasattr(to_module, name):
            setattr(to_module, name, Parameter(getattr(from_module, name).detach()))
        source = from_module.parametrizations[name]
        for parametrization in source:
            register_parametrization(to_module, name, parametrization)
        target = to_module.parametrizations[name]
        if hasattr(source, "original"):
            target.original = source.original
        else:
            i = 0
            while hasattr(source, f"original{i}"):
                setattr(target, f"original{i}", getattr(source, f"original{i}"))
                i += 1
    return to_module


__all__ = [
    "ParametrizationList",
    "cached",
    "is_parametrized",
    "register_parametrization",
    "remove_parametrizations",
    "transfer_parametrizations_and_params",
    "type_before_parametrizations",
]
