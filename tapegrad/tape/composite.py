"""Composite calls: a function that runs as several primitives (F.cross_entropy, softmax,
layer_norm, gelu, ...) marks the node of its result with the call, so that the teaching tools can
show the call as ONE step with its textbook rule (primitives/composites.py) and expand it to the
primitives that ran (teach/grouping.py).

Layer L2 (and the rule table's registry, for the Tensor type bound there): the engine never reads
a mark, and nothing is paid per op: a mark is one small object per call, kept in Node's `composite`
slot, which record() leaves unset (read it with getattr(node, "composite", None)). A mark holds
edges (as a Node does), never the input tensors, so it keeps no activation alive; constant inputs
(targets, masks) are kept by reference. A later mark on the same node replaces an earlier one.
"""

from __future__ import annotations

from typing import Any, NamedTuple, TypeVar

from ..primitives import registry
from .node import Node

T = TypeVar("T")

__all__ = ["Composite", "mark"]


class Composite(NamedTuple):
    """One call of a composite function, as its result's node remembers it (made by `mark`)."""

    name: str  # the function: "cross_entropy"
    labels: tuple[str, ...]  # its inputs' names in the function's rule: ("x", "y", "w")
    # per input: the node that made it (a tensor on the tape), or the input as it was given (a
    # leaf tensor, an array, a number; None for an absent one, such as a missing bias)
    links: tuple
    params: dict  # what the rule's variant depends on (reduction, N, dim, ...)

    @property
    def edges(self) -> tuple:
        """Per input: its node, the leaf tensor itself, or None (a constant: no gradient)."""
        tensor: Any = registry.layer.tensor_type
        return tuple(
            link
            if isinstance(link, Node) or isinstance(link, tensor) and link._requires_grad
            else None
            for link in self.links
        )

    @property
    def constants(self) -> tuple:
        """Per input that needs no gradient: its value, an array or a number (else None)."""
        tensor: Any = registry.layer.tensor_type
        return tuple(
            None
            if isinstance(link, Node)
            else (None if link._requires_grad else link._data)
            if isinstance(link, tensor)
            else link
            for link in self.links
        )

    def __repr__(self) -> str:
        return f"<composite call {self.name}({', '.join(self.labels)})>"


def mark(out: T, name: str, labels: tuple[str, ...], inputs: tuple, params: Any = None) -> T:
    """Remember on `out`'s node that it finishes a call of composite `name` with these inputs
    (None for an absent one, such as a missing bias); returns `out`.

    >>> return mark(loss, "mse_loss", ("x", "y"), (input, target), {"reduction": "mean"})
    """
    node = out._grad_fn  # type: ignore[attr-defined]
    if node is None:  # nothing recorded (no input requires grad, or no_grad)
        return out
    tensor: Any = registry.layer.tensor_type
    links = []
    for t in inputs:  # (a tensor on the tape by its node: a mark keeps no activation alive)
        links.append(t._grad_fn or t if isinstance(t, tensor) else t)
    # (tuple.__new__: no Python-level constructor call, as this runs once per call of a function)
    node.composite = _made(Composite, (name, labels, tuple(links), params or {}))
    return out


_made = tuple.__new__
