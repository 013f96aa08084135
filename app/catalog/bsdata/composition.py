"""A unit's composition as the walk of its entries finds it: model types (:class:`Leaf`) in
nested groups (:class:`Group`), their bounds, and how ``n`` models spread over them."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from xml.etree.ElementTree import Element

from app.catalog.bsdata.model import Node

__all__ = ["INF", "Group", "Leaf", "fill_models", "groups_of", "leaves_of", "size_bounds"]

INF = 10**9


@dataclass(slots=True)
class Leaf:
    """A model type of the composition being built."""

    node: Node
    name: str
    min: int
    max: int
    base_cost: float = 0.0
    cost_mods: list[tuple[Element, tuple[Element, ...], frozenset[str]]] = field(
        default_factory=list
    )
    profile: str = ""
    default_wargear: list[str] = field(default_factory=list)
    invulnerable: int | None = None


@dataclass(slots=True)
class Group:
    """A group of the composition. ``alternative``: its members are fixed packages of models
    ("1 Runtherd and 10 Gretchin" or "2 Runtherds and 20 Gretchin") of which one is taken."""

    name: str
    ids: frozenset[str]
    min: int
    max: int
    children: list[Leaf | Group] = field(default_factory=list)
    alternative: bool = False


def size_bounds(item: Leaf | Group) -> tuple[int, int]:
    if isinstance(item, Leaf):
        return item.min, item.max
    if not item.children:
        return 0, 0
    bounds = [size_bounds(c) for c in item.children]
    if item.alternative:
        lo = min(b[0] for b in bounds) if item.min >= 1 else 0
        return lo, max(b[1] for b in bounds)
    lo = sum(b[0] for b in bounds)
    hi = sum(min(b[1], INF) for b in bounds)
    return max(item.min, lo), min(item.max, hi)


def fill_models(item: Leaf | Group, n: int, out: dict[int, int]) -> bool:
    """Spread ``n`` models over ``item``: every minimum first, then the most flexible model
    type (the usual "more of the basic trooper") takes the rest. False if ``n`` models cannot
    be arranged (e.g. 15 Gretchin when the unit is 11 or 22)."""
    if isinstance(item, Leaf):
        out[id(item)] = out.get(id(item), 0) + n
        return item.min <= n <= item.max
    if item.alternative:
        if n == 0:
            return item.min == 0
        for kid in item.children:
            lo, hi = size_bounds(kid)
            if lo <= n <= hi:
                trial: dict[int, int] = {}
                if fill_models(kid, n, trial):
                    for k, v in trial.items():
                        out[k] = out.get(k, 0) + v
                    return True
        return False
    kids = item.children
    bounds = [size_bounds(k) for k in kids]
    alloc = [b[0] for b in bounds]
    rest = n - sum(alloc)
    if rest < 0:
        return False
    order = sorted(range(len(kids)), key=lambda i: (-(bounds[i][1] - bounds[i][0]), i))
    for i in order:
        if rest <= 0:
            break
        take = min(rest, bounds[i][1] - bounds[i][0])
        alloc[i] += take
        rest -= take
    ok = rest == 0
    for kid, count in zip(kids, alloc, strict=True):
        ok = fill_models(kid, count, out) and ok
    return ok


def leaves_of(item: Leaf | Group) -> Iterator[Leaf]:
    if isinstance(item, Leaf):
        yield item
    else:
        for c in item.children:
            yield from leaves_of(c)


def groups_of(item: Leaf | Group) -> Iterator[Group]:
    if isinstance(item, Group):
        yield item
        for c in item.children:
            yield from groups_of(c)
