"""The registry of rule systems.

Each rule-system package builds one :class:`RuleSystem` and calls :func:`register` when it is
imported; :mod:`app.engine.systems` imports every package. The API lists
:func:`rule_systems` and dispatches on :func:`get` through the hooks, so shared code never
needs an ``if ruleset == ...``.

Hooks (all optional; ``None`` means the capability is absent):

- ``analyze_combat(request: Mapping[str, object]) -> CombatAnalysis``: exact analysis of an
  attack request given as plain JSON-like values; raises ``ProfileError`` on bad input.
- ``resolve_combat(request: Mapping[str, object], roller: Roller) -> CombatResolution``: one
  live resolution rolled with ``roller``.
- ``extras``: any further named hooks a system offers (e.g. ``"rolls"``), by name.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from app.engine.errors import DuplicateRuleSystem, UnknownRuleSystem

if TYPE_CHECKING:
    from app.engine.combat import CombatAnalysis, CombatResolution
    from app.engine.roller import Roller

__all__ = ["RuleSystem", "get", "register", "rule_systems", "unregister"]

AnalyzeHook = Callable[[Mapping[str, object]], "CombatAnalysis"]
ResolveHook = Callable[[Mapping[str, object], "Roller"], "CombatResolution"]


@dataclass(frozen=True, slots=True)
class RuleSystem:
    """A rule system the engine implements."""

    id: str
    name: str
    capabilities: tuple[str, ...] = ()
    description: str = ""
    order: int = 100  # listing order (then id): lower first
    analyze_combat: AnalyzeHook | None = field(default=None, compare=False)
    resolve_combat: ResolveHook | None = field(default=None, compare=False)
    extras: Mapping[str, Callable[..., object]] = field(default_factory=dict, compare=False)

    def has(self, capability: str) -> bool:
        return capability in self.capabilities


_REGISTRY: dict[str, RuleSystem] = {}


def register(system: RuleSystem, *, replace: bool = False) -> RuleSystem:
    """Register ``system``; re-registering an equal system (same id, name, capabilities) is a
    no-op update, registering a different one under a taken id needs ``replace=True``."""
    existing = _REGISTRY.get(system.id)
    if existing is not None and not replace and existing != system:
        raise DuplicateRuleSystem(f"a different rule system is already registered as {system.id!r}")
    _REGISTRY[system.id] = system
    return system


def unregister(system_id: str) -> None:
    """Remove a system (for tests)."""
    _REGISTRY.pop(system_id, None)


def get(system_id: str) -> RuleSystem:
    try:
        return _REGISTRY[system_id]
    except KeyError:
        raise UnknownRuleSystem(system_id, _REGISTRY) from None


def rule_systems() -> list[RuleSystem]:
    """Every registered system, in a stable order (``order``, then ``id``)."""
    return sorted(_REGISTRY.values(), key=lambda s: (s.order, s.id))
