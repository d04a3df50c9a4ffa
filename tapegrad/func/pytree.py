"""Nested containers of values (pytrees: tuples, lists, dicts, namedtuples) taken apart into their
leaves and put back together, and a prefix (vmap's in_axes) spread over a tree's leaves.

Layer L5: standard library only.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class TreeSpec:
    """A tree's structure: its container type (None for a leaf), dict keys, and children."""

    kind: type | None
    keys: tuple = ()
    children: tuple = ()

    @property
    def num_leaves(self) -> int:
        return 1 if self.kind is None else sum(c.num_leaves for c in self.children)

    def __repr__(self) -> str:
        if self.kind is None:
            return "*"
        inner = ", ".join(
            f"{k!r}: {c!r}" if self.kind is dict else repr(c)
            for k, c in zip(self.keys or [None] * len(self.children), self.children)
        )
        return f"{self.kind.__name__}({inner})"


def _is_node(tree: Any) -> bool:
    return isinstance(tree, (tuple, list, dict))


def flatten(tree: Any) -> tuple[list, TreeSpec]:
    """The leaves of a tree (depth first, dicts in their order) and its structure.

    >>> flatten((1, [2, 3]))[0]
    [1, 2, 3]
    """
    if isinstance(tree, dict):
        keys = tuple(tree)
        parts = [flatten(tree[k]) for k in keys]
        return [x for p in parts for x in p[0]], TreeSpec(dict, keys, tuple(p[1] for p in parts))
    if isinstance(tree, (tuple, list)):
        parts = [flatten(t) for t in tree]
        leaves = [x for p in parts for x in p[0]]
        return leaves, TreeSpec(type(tree), (), tuple(p[1] for p in parts))
    return [tree], TreeSpec(None)


def unflatten(spec: TreeSpec, leaves: list) -> Any:
    """The tree of structure `spec` with these leaves (the inverse of flatten)."""
    return _build(spec, iter(leaves))


def _build(spec: TreeSpec, leaves: Any) -> Any:
    # (a module-level function, not a closure calling itself: that would be a reference cycle,
    # keeping the leaves, often big tensors, alive until the garbage collector runs)
    if spec.kind is None:
        return next(leaves)
    items = [_build(c, leaves) for c in spec.children]
    if spec.kind is dict:
        return dict(zip(spec.keys, items))
    if spec.kind in (tuple, list):
        return spec.kind(items)
    return spec.kind(*items)  # (a namedtuple)


class PrefixError(ValueError):
    """A prefix (in_axes/out_axes) whose structure does not match the tree's."""


def broadcast_prefix(prefix: Any, spec: TreeSpec) -> list:
    """One entry of `prefix` per leaf of the tree `spec` describes: a leaf of the prefix (an int
    or None) stands for every leaf below it; containers must match the tree's."""
    if not _is_node(prefix):
        return [prefix] * spec.num_leaves
    if spec.kind is None or not _same_kind(prefix, spec):
        raise PrefixError(f"{_spec_of(prefix)!r} against {spec!r}")
    if isinstance(prefix, dict):
        if set(prefix) != set(spec.keys):
            raise PrefixError(f"{_spec_of(prefix)!r} against {spec!r}")
        items = [prefix[k] for k in spec.keys]
    else:
        if len(prefix) != len(spec.children):
            raise PrefixError(f"{_spec_of(prefix)!r} against {spec!r}")
        items = list(prefix)
    return [x for p, c in zip(items, spec.children) for x in broadcast_prefix(p, c)]


def _same_kind(prefix: Any, spec: TreeSpec) -> bool:
    if isinstance(prefix, dict):
        return spec.kind is dict
    if isinstance(prefix, list):
        return spec.kind is list
    return spec.kind is not None and spec.kind is not list and spec.kind is not dict


def _spec_of(tree: Any) -> TreeSpec:
    return flatten(tree)[1]
