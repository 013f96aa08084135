"""Warhammer 40,000, 10th edition core rules: the attack sequence and the other rolls.

Public API (see docs/rulings/wh40k10e-combat.md for the rulings beyond RULINGS.md):

- :func:`request_from_dict` (plain JSON-like values -> :class:`CombatRequest`, raising one
  ``ProfileError`` listing every bad field), or build the profiles directly;
- :func:`analyze` -> ``CombatAnalysis`` (exact); :func:`resolve` -> ``CombatResolution``
  (live, seeded); serialise either with :func:`app.engine.combat.to_jsonable`;
- :func:`parse_ability` / :func:`parse_abilities` for ability texts;
- :mod:`.rolls` for Charge, Battle-shock, Advance, Desperate Escape, Hazardous, Deadly Demise,
  Destroyed Transport, Grenade and Tank Shock.

Importing the package registers the rule system ``wh40k-10e``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from app.engine.combat import CombatAnalysis, CombatResolution
from app.engine.registry import RuleSystem, register
from app.engine.roller import Roller
from app.engine.wh40k10e import rolls
from app.engine.wh40k10e.abilities import (
    Ability,
    AbilityKind,
    UnknownAbility,
    parse_abilities,
    parse_ability,
)
from app.engine.wh40k10e.exact import analyze
from app.engine.wh40k10e.live import resolve
from app.engine.wh40k10e.profiles import (
    AttackEntry,
    CombatRequest,
    RerollPolicy,
    Situation,
    Target,
    TargetGroup,
    Weapon,
    WeaponKind,
    request_from_dict,
)

__all__ = [
    "SYSTEM",
    "SYSTEM_ID",
    "Ability",
    "AbilityKind",
    "AttackEntry",
    "CombatRequest",
    "RerollPolicy",
    "Situation",
    "Target",
    "TargetGroup",
    "UnknownAbility",
    "Weapon",
    "WeaponKind",
    "analyze",
    "analyze_combat",
    "parse_abilities",
    "parse_ability",
    "request_from_dict",
    "resolve",
    "resolve_combat",
    "rolls",
]

SYSTEM_ID = "wh40k-10e"


def analyze_combat(request: Mapping[str, Any]) -> CombatAnalysis:
    """Registry hook: exact analysis of a plain request (see :func:`request_from_dict`)."""
    return analyze(request_from_dict(request))


def resolve_combat(request: Mapping[str, Any], roller: Roller) -> CombatResolution:
    """Registry hook: one live resolution of a plain request with ``roller``."""
    return resolve(request_from_dict(request), roller)


SYSTEM = register(
    RuleSystem(
        id=SYSTEM_ID,
        name="Warhammer 40,000 — 10th edition core rules",
        capabilities=("combat.analyze", "combat.resolve", "rolls", "match"),
        description=(
            "The official 10th-edition core rules: exact attack analysis with every core "
            "weapon ability, live seeded resolution, and the other rolls of the rules."
        ),
        order=10,
        analyze_combat=analyze_combat,
        resolve_combat=resolve_combat,
        extras={
            "charge_success_probability": rolls.charge_success_probability,
            "battle_shock_pass_probability": rolls.battle_shock_pass_probability,
        },
    )
)
