"""What a 10th-edition match is created from: two army snapshots, a battle size, a mission.

The lead converts an army list into an :class:`ArmySpec`: per unit its id (unique in the
match), name, datasheet, model count (the Starting Strength, [L852-854]), wounds per model (the
unit's W for display, and optionally each model slot's own W when its model types differ), OC,
Leadership (the N of "N+", lower is better [L3004-3005]), keywords (upper case: CHARACTER,
INFANTRY, VEHICLE, AIRCRAFT, TRANSPORT, DEDICATED TRANSPORT, FORTIFICATION, GRENADES, SMOKE,
WALKER, FLY, TITANIC, MONSTER...), the core abilities the match uses (:class:`Ability`), the
Bodyguard datasheets a Leader may join, transport capacity (in models), Toughness (for Tank
Shock) and points. Every number is bounded so that no request can build a huge match.
"""

from __future__ import annotations

import enum
import re
from collections.abc import Mapping
from dataclasses import dataclass, field

from app.engine.match.errors import Refusal, RefusalKind
from app.engine.match.missions import Mission

__all__ = [
    "MAX_UNITS",
    "Ability",
    "ArmySpec",
    "BattleOptions",
    "MatchSetup",
    "Seat",
    "UnitSpec",
    "other",
]

MAX_UNITS = 100
NEVER_EMBARK = ("MONSTER", "VEHICLE", "TITANIC", "AIRCRAFT", "FORTIFICATION", "TRANSPORT")
MAX_MODELS = 200
_DEADLY_DEMISE = re.compile(r"(?:[1-9]|10|[1-3]?D[36](?:\+(?:[1-9]|10))?)")


class Seat(enum.StrEnum):
    A = "A"
    B = "B"


def other(seat: Seat) -> Seat:
    return Seat.B if seat is Seat.A else Seat.A


class Ability(enum.StrEnum):
    """Core abilities the match enforces (unit level: every model has it)."""

    DEEP_STRIKE = "deep_strike"  # [L3146-3164]
    SCOUTS = "scouts"  # [L3166-3198]
    INFILTRATORS = "infiltrators"  # [L3200-3209]
    FIGHTS_FIRST = "fights_first"  # [L2644-2651]
    HOVER = "hover"  # [L4104-4126]
    ASSAULT_WEAPONS = "assault_weapons"  # has >= 1 [ASSAULT] ranged weapon [L2009-2018]
    PISTOLS = "pistols"  # has >= 1 [PISTOL] [L2060-2086]
    LONE_OPERATIVE = "lone_operative"  # targeted only within 12" unless Attached [L1476-1478]
    STEALTH = "stealth"  # -1 to hit ranged attacks against it (every model) [L1594-1596]


def _bad(field_name: str, message: str) -> Refusal:
    return Refusal(
        "invalid_setup",
        f"{field_name}: {message}",
        kind=RefusalKind.INPUT,
        details={"field": field_name},
    )


# weakref_slot: the views keep a part per spec while it lives (views._spec_parts)
@dataclass(frozen=True, slots=True, weakref_slot=True)
class UnitSpec:
    id: str
    name: str
    datasheet: str
    models: int
    wounds: int
    oc: int
    leadership: int
    points: int = 0
    keywords: frozenset[str] = frozenset()
    abilities: frozenset[Ability] = frozenset()
    scouts: int | None = None
    leads: tuple[str, ...] = ()
    transport_capacity: int = 0
    toughness: int | None = None
    model_wounds: tuple[int, ...] = ()  # each slot's W; () = every model has ``wounds``
    # the keywords a model needs to embark in this Transport (any of them, e.g. INFANTRY);
    # () = the data does not say (see ``transport_fit``)
    transport_keywords: tuple[str, ...] = ()
    # the N of "Feel No Pain N+" (None: no Feel No Pain) [L1857-1869]
    feel_no_pain: int | None = None
    # the x of "Deadly Demise x" ("1", "D3", "D6"...; "" = none) [L1876-1893]
    deadly_demise: str = ""
    # the x of "Firing Deck x" (0 = none) [L1292-1308]
    firing_deck: int = 0

    def __post_init__(self) -> None:
        where = f"unit {self.id!r}"
        if not self.id or len(self.id) > 64:
            raise _bad("id", "a unit id is 1 to 64 characters")
        if not self.name or len(self.name) > 120 or len(self.datasheet) > 120:
            raise _bad(where, "name (1-120 characters) and datasheet (<= 120) are required")
        if not 1 <= self.models <= MAX_MODELS:
            raise _bad(where, f"models must be 1..{MAX_MODELS}")
        if not 1 <= self.wounds <= 100:
            raise _bad(where, "wounds per model must be 1..100")
        if self.model_wounds and len(self.model_wounds) != self.models:
            raise _bad(where, "model_wounds gives one W per model slot (as many as models)")
        if any(not 1 <= w <= 100 for w in self.model_wounds):
            raise _bad(where, "wounds per model must be 1..100")
        if not 0 <= self.oc <= 20:
            raise _bad(where, "OC must be 0..20")
        if not 2 <= self.leadership <= 12:
            raise _bad(where, "Leadership is the N of 'N+', 2..12")
        if not 0 <= self.points <= 10_000:
            raise _bad(where, "points must be 0..10000")
        if not 0 <= self.transport_capacity <= MAX_MODELS:
            raise _bad(where, f"transport capacity must be 0..{MAX_MODELS}")
        if self.scouts is not None and not 1 <= self.scouts <= 24:
            raise _bad(where, "Scouts distance must be 1..24 inches")
        if self.toughness is not None and not 1 <= self.toughness <= 30:
            raise _bad(where, "Toughness must be 1..30")
        if self.feel_no_pain is not None and not 2 <= self.feel_no_pain <= 6:
            raise _bad(where, "Feel No Pain is the N of 'N+', 2..6")
        if self.deadly_demise and _DEADLY_DEMISE.fullmatch(self.deadly_demise) is None:
            raise _bad(where, "Deadly Demise is a number or D3/D6 (plus a number): 1, D3, D6+2")
        if not 0 <= self.firing_deck <= MAX_MODELS:
            raise _bad(where, f"Firing Deck must be 0..{MAX_MODELS}")
        if len(self.keywords) > 64 or len(self.leads) > 64 or len(self.transport_keywords) > 16:
            raise _bad(where, "too many keywords or Bodyguard datasheets")
        object.__setattr__(
            self, "keywords", frozenset(k.strip().upper() for k in self.keywords if k.strip())
        )
        object.__setattr__(
            self,
            "transport_keywords",
            tuple(k.strip().upper() for k in self.transport_keywords if k.strip()),
        )
        if self.scouts is not None and Ability.SCOUTS not in self.abilities:
            object.__setattr__(self, "abilities", self.abilities | {Ability.SCOUTS})
        if all(w == self.wounds for w in self.model_wounds):
            object.__setattr__(self, "model_wounds", ())  # one canonical form (and old logs)
        else:
            object.__setattr__(self, "model_wounds", tuple(self.model_wounds))

    def wounds_of(self, slot: int) -> int:
        """The wounds characteristic of model slot ``slot`` (0-based)."""
        return self.model_wounds[slot] if self.model_wounds else self.wounds

    @property
    def max_wounds(self) -> tuple[int, ...]:
        """Every model slot's wounds characteristic, in slot order."""
        return self.model_wounds or (self.wounds,) * self.models

    def has(self, keyword: str) -> bool:
        return keyword in self.keywords

    def transport_fit(self, passenger: UnitSpec) -> bool | None:
        """Whether ``passenger``'s models may embark in this Transport [L1208-1212]: ``True``
        or ``False`` where the data tells, ``None`` where only the datasheet's text can (the
        player is asked). Where the data gives no keywords: no MONSTER, VEHICLE, TITANIC,
        AIRCRAFT or FORTIFICATION ever embarks, and INFANTRY does (what every transport
        capacity of the edition allows: docs/rulings/wh40k10e-battle.md)."""
        if self.transport_keywords:
            return any(passenger.has(k) for k in self.transport_keywords)
        if any(passenger.has(k) for k in NEVER_EMBARK):
            return False
        return True if passenger.has("INFANTRY") else None

    @property
    def is_leader(self) -> bool:
        return bool(self.leads)


@dataclass(frozen=True, slots=True)
class ArmySpec:
    name: str
    units: tuple[UnitSpec, ...]
    faction: str = ""

    def __post_init__(self) -> None:
        if not self.units or len(self.units) > MAX_UNITS:
            raise _bad("units", f"an army has 1..{MAX_UNITS} units")
        if len(self.name) > 120 or len(self.faction) > 120:
            raise _bad("name", "army name and faction are at most 120 characters")


@dataclass(frozen=True, slots=True)
class BattleOptions:
    """Match settings where the rules leave a choice (see docs/rulings/wh40k10e-battle.md)."""

    starting_cp: int = 0  # RULINGS: default 0
    deep_strike_from_round: int = 1  # the seed sets no Deep Strike round limit (note 2 §5.5)
    aircraft_count_toward_reserve_cap: bool = False  # note 2 §5.4
    prompt_rapid_ingress: bool = True  # open an end-of-Movement window for the opponent
    battle_shocked_fall_back_tests_fly: bool = True  # note 1 §7.8: literal text
    # the end-of-turn coherency check [L449-456]; None (a log recorded before the check
    # existed) means off: creating a match records True unless told otherwise
    coherency_check: bool | None = None
    # narrative missions: their stratagems need Battle-forged armies [L125] (an army built in
    # the app is; players may say otherwise)
    battle_forged: bool = True
    # a combat zone of the 8th-edition book [L563-L667], chosen before deployment [L571]:
    # its id; its numbers are recorded in the mission's options (``combat_zone``)
    combat_zone: str | None = None
    # an expansion of the 8th-edition book [L671-L919] a narrative mission is played with: its
    # id; its numbers are recorded in the mission's options (``expansion``)
    expansion: str | None = None

    def __post_init__(self) -> None:
        if not 0 <= self.starting_cp <= 20:
            raise _bad("options.starting_cp", "must be 0..20")
        if not 1 <= self.deep_strike_from_round <= 5:
            raise _bad("options.deep_strike_from_round", "must be 1..5")


@dataclass(frozen=True, slots=True)
class MatchSetup:
    armies: Mapping[Seat, ArmySpec]
    battle_size: str
    mission: Mission
    options: BattleOptions = field(default_factory=BattleOptions)

    def __post_init__(self) -> None:
        if set(self.armies) != {Seat.A, Seat.B}:
            raise _bad("armies", "a match needs the armies of seats A and B")
        if self.mission.rule_system != "wh40k-10e":
            raise _bad("mission", f"mission {self.mission.id!r} is not a 10th-edition mission")
        try:
            self.mission.battle_size(self.battle_size)
        except KeyError:
            sizes = ", ".join(s.id for s in self.mission.battle_sizes)
            raise _bad("battle_size", f"unknown battle size (this mission has: {sizes})") from None
        seen: set[str] = set()
        for army in self.armies.values():
            for unit in army.units:
                if unit.id in seen:
                    raise _bad("units", f"unit id {unit.id!r} is used twice in the match")
                seen.add(unit.id)

    @property
    def points_limit(self) -> int:
        return self.mission.battle_size(self.battle_size).points

    def unit_specs(self) -> dict[str, tuple[Seat, UnitSpec]]:
        return {u.id: (seat, u) for seat in (Seat.A, Seat.B) for u in self.armies[seat].units}
