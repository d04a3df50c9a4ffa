"""torch.nn.utils.stateless: functional_call, PyTorch's deprecated spelling of
tapegrad.func.functional_call (a FutureWarning, as PyTorch 2's).

Layer L5: imports func (lazily: func imports nn.module, so nn's import of it would be circular).
"""

from __future__ import annotations

import warnings
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ...tensor import Tensor
    from ..module import Module


def functional_call(
    module: Module,
    parameters_and_buffers: dict[str, Tensor],
    args: Any = None,
    kwargs: dict[str, Any] | None = None,
    *,
    tie_weights: bool = True,
    strict: bool = False,
) -> Any:
    """`module(*args, **kwargs)` with the named parameters and buffers replaced for this call;
    deprecated in PyTorch 2.0 for torch.func.functional_call, which it calls.

    >>> lin = tg.nn.Linear(2, 1)
    >>> tg.nn.utils.stateless.functional_call(lin, {"weight": tg.ones(1, 2), "bias": tg.zeros(1)},
    ...                                       (tg.ones(2),))  # doctest: +SKIP
    tensor([2.])
    """
    warnings.warn(
        "`torch.nn.utils.stateless.functional_call` is deprecated as of PyTorch 2.0 and will be "
        "removed in a future version of PyTorch. Please use `torch.func.functional_call` instead "
        "which is a drop-in replacement.",
        FutureWarning,
        stacklevel=2,
    )
    from ...func.module_state import functional_call as _functional_call  # (lazy: see above)

    return _functional_call(
        module, parameters_and_buffers, args, kwargs, tie_weights=tie_weights, strict=strict
    )


__all__ = ["functional_call"]
