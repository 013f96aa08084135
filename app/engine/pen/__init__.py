"""PEN, the French fan ruleset based on 5th edition (rules/pen.md, seed 000_f613dfceef96221d).

Public API (rulings beyond RULINGS.md: docs/rulings/pen.md):

- :func:`request_from_dict` (plain JSON-like values -> :class:`AttackRequest`, raising one
  ``ProfileError`` listing every bad field), or build the profiles directly
  (:class:`Unit`, :class:`Vehicle`, :class:`Weapon`, :class:`Situation`);
- :func:`analyze` -> ``CombatAnalysis`` (exact: shooting, melee with the combat result and the
  sweeping advance, vehicles with the damage tables and hull points);
- :func:`resolve` -> ``CombatResolution`` (live, seeded: every die with its label), rolling the
  same dice procedures the exact analysis enumerates;
- :mod:`.tables` (every table of §5), :mod:`.rolls` (morale, tests, reserves, dawn, game
  length, scatter...), :mod:`.names` (properties and special rules, French or English),
  :mod:`.weapons` (close-combat weapons of §2.7 and the standard weapons of §6.1).

Turn structures (issue 14): a PEN battle is played ``classic`` (each player's turn in its
phases), ``alternation`` (the set-up option of §3.5, :mod:`.battle`) or ``dynamics`` (the
Dynamics common turn, :mod:`app.engine.dynamics`); :data:`TURN_STRUCTURES` lists them and the
registration offers them as the hook ``extras["turn_structures"]``.

Importing the package registers the rule system ``pen``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from app.engine.combat import CombatAnalysis, CombatResolution
from app.engine.pen import rolls, tables
from app.engine.pen.analysis import analyze
from app.engine.pen.live import resolve
from app.engine.pen.names import Rule, RuleRef, UnknownName, parse_rule
from app.engine.pen.profiles import (
    Armour,
    AttackRequest,
    Facing,
    Situation,
    Template,
    TwinLinkedMode,
    Unit,
    UnitType,
    Vehicle,
    VehicleType,
    Weapon,
    WeaponKind,
    WeaponType,
)
from app.engine.pen.requests import request_from_dict
from app.engine.pen.weapons import MELEE_WEAPONS, STANDARD_WEAPONS, melee_weapon, standard_weapon
from app.engine.registry import RuleSystem, register
from app.engine.roller import Roller

__all__ = [
    "CAPABILITIES",
    "MELEE_WEAPONS",
    "STANDARD_WEAPONS",
    "SYSTEM",
    "SYSTEM_ID",
    "TURN_STRUCTURES",
    "Armour",
    "AttackRequest",
    "Facing",
    "Rule",
    "RuleRef",
    "Situation",
    "Template",
    "TwinLinkedMode",
    "Unit",
    "UnitType",
    "UnknownName",
    "Vehicle",
    "VehicleType",
    "Weapon",
    "WeaponKind",
    "WeaponType",
    "analyze",
    "analyze_combat",
    "melee_weapon",
    "parse_rule",
    "request_from_dict",
    "resolve",
    "resolve_combat",
    "rolls",
    "standard_weapon",
    "tables",
]

SYSTEM_ID = "pen"

TURN_STRUCTURES: tuple[str, ...] = ("classic", "alternation", "dynamics")
"""How the turns of a PEN battle can be played; a match chooses one (default: the first)."""

CAPABILITIES: tuple[str, ...] = (
    "combat.analyze",
    "combat.resolve",
    "combat.melee_result",
    "combat.vehicles",
    "rolls",
    "match",
)


def analyze_combat(request: Mapping[str, Any]) -> CombatAnalysis:
    """Registry hook: exact analysis of a plain request (see :func:`request_from_dict`)."""
    return analyze(request_from_dict(request))


def resolve_combat(request: Mapping[str, Any], roller: Roller) -> CombatResolution:
    """Registry hook: one live resolution of a plain request with ``roller``."""
    return resolve(request_from_dict(request), roller)


SYSTEM = register(
    RuleSystem(
        id=SYSTEM_ID,
        name="PEN — French fan ruleset (5th-edition based)",
        capabilities=CAPABILITIES,
        description=(
            "The PEN house rules built on 5th edition: exact shooting and close-combat "
            "analysis with the PEN tables (BS, 10x10 WS, S-T, AP matrix, cover), the combat "
            "result and sweeping advance, vehicles with the hit-location and damage tables, "
            "live seeded resolution, and the other rolls of the game."
        ),
        order=20,
        analyze_combat=analyze_combat,
        resolve_combat=resolve_combat,
        extras={
            "morale_test": rolls.morale_test,
            "characteristic_test": rolls.characteristic_test,
            "reserve_arrival": rolls.reserve_arrival,
            "game_length": rolls.game_length,
            "dawn_round": rolls.dawn_round,
            "turn_structures": lambda: TURN_STRUCTURES,
        },
    )
)
