"""The narrative missions of the 8th-edition book (``app.engine.narrative8e``) in the battle.

A 10th-edition match whose mission carries ``options["narrative"]`` (written by
:func:`app.engine.narrative8e.match.match_missions`: the pack id, its value measure, its
narrative rules and the scenario, as recorded at creation) plays that scenario: its own set-up
steps (roles, hidden deployment, deployment with reserves, preliminary bombardment, first
turn), its battle mechanics (mission reserves, the alarm, sustained assault, sabotage, the spy,
escapes, zones) and its victory evaluation. A match without it (Only War, and every log recorded
before) never reaches this module: :attr:`BattleState.narrative` is ``None``.

This module holds the vocabulary (state, events, commands) and the pure state changes; the
decisions are in :mod:`.narrative_rules`.

Secrets: the token-to-unit mapping of hidden deployment lives in the state (as Battle
Formations do) but is sent only to the deploying seat: its event has that seat as audience
and the view shows it to that seat only, until :class:`TokenRevealed` events make each token
public.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import ClassVar

from app.engine.match.codec import RawJson, decoder_for
from app.engine.match.dice import Roll
from app.engine.match.events import Event
from app.engine.match.missions import Mission as MatchMission
from app.engine.narrative8e.battle import Alarm, AlarmCause, AlarmState
from app.engine.narrative8e.pack import Mission, NarrativeRules, Side
from app.engine.wh40k10e.battle.narrative_expansions import (
    EXPANSION_EVENTS,
    ExpansionState,
    expansion_of,
)
from app.engine.wh40k10e.battle.setup import Seat, other
from app.engine.wh40k10e.battle.state import BattleState, ModelDamage, MoveMode, ReserveKind

__all__ = [
    "NARRATIVE_EVENTS",
    "NarrativeState",
    "moved",
    "narrative_of",
    "seat_of_side",
    "side_of",
]


# -- state -----------------------------------------------------------------------------------


@dataclass(frozen=True)  # no slots: see "Speed" in state.py
class NarrativeState:
    pack: str
    mission: Mission
    rules: NarrativeRules
    value_measure: str
    steps: tuple[str, ...]
    """The set-up steps: ``choose_attacker``, ``declare_formations``, then the pack's own."""
    step: str = ""
    # hidden deployment: ``tokens`` is SECRET (the deployer's) until revealed
    deployer: Seat | None = None
    tokens: Mapping[str, str | None] = field(default_factory=dict)
    token_ids: tuple[str, ...] = ()
    revealed: Mapping[str, str | None] = field(default_factory=dict)
    decoys_allowed: int = 0
    # mission reserves (Location.RESERVES): arrive by the mission's policy
    reserves: frozenset[str] = frozenset()
    reserve_tried: frozenset[str] = frozenset()  # rolled this phase
    fog_delayed: frozenset[str] = frozenset()  # Night Fight: arrive in their next turn [L591]
    fog_rolled: frozenset[str] = frozenset()  # Night Fight: core arrivals that rolled the fog
    # preliminary bombardment
    go_to_ground: frozenset[str] = frozenset()
    grounded: frozenset[str] = frozenset()  # went to ground: no action in their first turn
    steady: frozenset[str] = frozenset()  # Iron Discipline passed: act normally [L255]
    bombarded: bool = False
    # the alarm (Sabotage, Rescue)
    alarm: Alarm = field(default_factory=Alarm)
    # sustained assault: Attacker units destroyed (may return), times destroyed, returned
    down: tuple[str, ...] = ()
    destructions: int = 0
    returned: tuple[str, ...] = ()
    assault_rolled: bool = False  # this Movement phase
    arrived_now: tuple[str, ...] = ()  # replacement units set up this Movement phase
    arrival_uses: tuple[tuple[str, str], ...] = ()  # (stratagem, unit) on those arrivals
    # Blitz: Defender units under Entrenchments until they move [L393]
    entrenched: frozenset[str] = frozenset()
    # sabotage attempts (unit, round) and units given one more by Extra Explosives
    attempts: tuple[tuple[str, int], ...] = ()
    extra_explosives: tuple[str, ...] = ()
    # the spy of Rescue
    places: tuple[str, ...] = ()
    searched: tuple[str, ...] = ()
    spy_found_at: str | None = None
    spy_alive: bool = True
    # Ambush escapes, Blitz zones (reported)
    escaped: tuple[str, ...] = ()
    first_line: tuple[str, ...] = ()
    second_line: tuple[str, ...] = ()
    # mission stratagems spent: (seat, id, cp, round)
    spent: tuple[tuple[Seat, str, int, int], ...] = ()
    # the stratagems spent on a target: (seat, id, target)
    aimed: tuple[tuple[Seat, str, str], ...] = ()
    # the same with their CP and round: (seat, id, target, cp, round)
    aimed_at: tuple[tuple[Seat, str, str, int, int], ...] = ()
    dawn_raid_rounds: int = 0
    # the expansion the mission is played with (narrative_expansions.py; None: none)
    expansion: ExpansionState | None = None
    # the units' Power Levels the players entered (value measure "power": power_levels.py)
    power: Mapping[str, int] = field(default_factory=dict)

    def used(self, seat: Seat, stratagem: str) -> int:
        """CP ``seat`` spent on ``stratagem`` (0: never used)."""
        return sum(cp for s, i, cp, _ in self.spent if s is seat and i == stratagem)

    def times_used(self, seat: Seat, stratagem: str) -> int:
        return sum(1 for s, i, _, _ in self.spent if s is seat and i == stratagem)


def narrative_of(mission: MatchMission) -> NarrativeState | None:
    """The narrative scenario recorded in a match mission (``None``: not a narrative one)."""
    raw = mission.options.get("narrative")
    if not isinstance(raw, dict):
        return None
    n_mission = decoder_for(Mission)(raw["mission"], "options.narrative.mission")
    rules = decoder_for(NarrativeRules)(raw["rules"], "options.narrative.rules")
    assert isinstance(n_mission, Mission)
    assert isinstance(rules, NarrativeRules)
    measure = raw.get("value_measure", "points")
    pack = raw.get("pack", "")
    steps: tuple[str, ...] = ("choose_attacker", "declare_formations")
    steps += tuple(s for s in n_mission.setup if s != "choose_attacker")
    count = n_mission.params.get("hiding_places", 0) if n_mission.evaluator == "rescue" else 0
    places = tuple(str(i) for i in range(1, int(count) + 1)) if isinstance(count, int) else ()
    return NarrativeState(
        places=places,
        pack=str(pack),
        mission=n_mission,
        rules=rules,
        value_measure=str(measure),
        steps=steps,
        dawn_raid_rounds=rules.dawn_raid_rounds if n_mission.rules.dawn_raid else 0,
        expansion=expansion_of(mission.options),
    )


def moved(state: BattleState, unit: str) -> bool:
    """``unit`` (or a unit of its group) made a move the match records this turn: a Normal,
    Advance or Fall Back move, a charge move, or it was set up from Reserves."""
    moves = (MoveMode.NORMAL, MoveMode.ADVANCE, MoveMode.FALL_BACK)
    return any(
        state.units[i].move in moves or state.units[i].charge_moved or state.units[i].arrived
        for i in state.group(unit)
    )


def side_of(attacker: Seat | None, seat: Seat) -> Side:
    return Side.ATTACKER if seat is attacker else Side.DEFENDER


def seat_of_side(attacker: Seat, side: Side) -> Seat:
    return attacker if side is Side.ATTACKER else other(attacker)


# -- events ----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class RolesChosen(Event):
    """Who attacks [L125, L265]: ``reason`` ``higher``, ``ratio`` or ``roll_off``; the army
    values compared (points, or Power Level)."""

    kind: ClassVar[str] = "narrative_roles_chosen"
    attacker: Seat
    reason: str
    values: tuple[int, int]
    roll: Roll | None = None


@dataclass(frozen=True, slots=True)
class TokensPlaced(Event):
    """SECRET (sent to ``seat`` only): the token-to-unit mapping (``None``: a decoy)."""

    kind: ClassVar[str] = "narrative_tokens_placed"
    seat: Seat
    tokens: Mapping[str, str | None]


@dataclass(frozen=True, slots=True)
class TokensLaid(Event):
    """Public: ``seat`` put these tokens on the table; ``reserves`` start in Reserve."""

    kind: ClassVar[str] = "narrative_tokens_laid"
    seat: Seat
    tokens: tuple[str, ...]
    reserves: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class TokenRevealed(Event):
    """A token turned over: its unit set up, first model on the token (``None``: a decoy,
    removed) [L52, L177]; ``forced`` by *Spies* [L167]."""

    kind: ClassVar[str] = "narrative_token_revealed"
    token: str
    unit: str | None
    units: tuple[str, ...] = ()
    forced: bool = False


@dataclass(frozen=True, slots=True)
class ForcesDeployed(Event):
    """``seat`` set up ``units`` (their groups); ``reserves`` start in Reserve."""

    kind: ClassVar[str] = "narrative_forces_deployed"
    seat: Seat
    units: tuple[str, ...]
    reserves: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class GoToGroundDeclared(Event):
    kind: ClassVar[str] = "narrative_go_to_ground"
    units: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class BombardmentResolved(Event):
    """One enemy unit rolled for [L64]: the dice to hit, then (if hit) the damage die."""

    kind: ClassVar[str] = "narrative_bombardment"
    target: str
    roll: Roll
    hit: bool
    mortal_wounds: int = 0
    damage: tuple[ModelDamage, ...] = ()
    grounded: bool = False


@dataclass(frozen=True, slots=True)
class BombardmentFinished(Event):
    kind: ClassVar[str] = "narrative_bombardment_finished"


@dataclass(frozen=True, slots=True)
class FirstTurnDecided(Event):
    kind: ClassVar[str] = "narrative_first_turn"
    first: Seat
    reason: str
    roll: Roll | None = None


@dataclass(frozen=True, slots=True)
class MissionStratagemUsed(Event):
    kind: ClassVar[str] = "narrative_stratagem_used"
    seat: Seat
    stratagem: str
    cp: int
    round: int
    target: str | None = None


@dataclass(frozen=True, slots=True)
class AlarmChanged(Event):
    """The alarm pending (raised at the end of this turn) or raised [L90-L106]; ``truncate``:
    the Attacker's turn ends now."""

    kind: ClassVar[str] = "narrative_alarm"
    state: AlarmState
    cause: AlarmCause
    round: int
    during: Seat | None = None
    truncate: bool = False


@dataclass(frozen=True, slots=True)
class ReserveRolled(Event):
    """A mission reserve roll [L78] (``roll`` None: no die was needed)."""

    kind: ClassVar[str] = "narrative_reserve_rolled"
    unit: str
    arrives: bool
    reason: str
    roll: Roll | None = None
    modifier: int = 0


@dataclass(frozen=True, slots=True)
class AssaultReturnRolled(Event):
    """Sustained assault [L112]: a D6 per destroyed Attacker unit (``units`` in dice order);
    ``returned`` are set up again within 6" of the mission's edge."""

    kind: ClassVar[str] = "narrative_assault_return"
    units: tuple[str, ...]
    roll: Roll
    returned: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class AttackerUnitsDown(Event):
    """Attacker units destroyed (``culled``: removed at a quarter strength [L112])."""

    kind: ClassVar[str] = "narrative_attacker_units_down"
    units: tuple[str, ...]
    culled: bool = False


@dataclass(frozen=True, slots=True)
class SabotageAttempted(Event):
    kind: ClassVar[str] = "narrative_sabotage_attempted"
    unit: str
    round: int


@dataclass(frozen=True, slots=True)
class HidingPlaceSearched(Event):
    kind: ClassVar[str] = "narrative_hiding_place_searched"
    unit: str
    place: str
    roll: Roll
    found: bool
    scan: bool = False


@dataclass(frozen=True, slots=True)
class SpyKilled(Event):
    kind: ClassVar[str] = "narrative_spy_killed"


@dataclass(frozen=True, slots=True)
class UnitEscaped(Event):
    kind: ClassVar[str] = "narrative_unit_escaped"
    units: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class ZonesReported(Event):
    kind: ClassVar[str] = "narrative_zones_reported"
    first_line: tuple[str, ...]
    second_line: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class NarrativeEvaluated(Event):
    """The mission's victory evaluation: ``result`` major_victory / victory / draw, the VP
    (Attacker, Defender) where the mission scores them, and the breakdown lines."""

    kind: ClassVar[str] = "narrative_evaluated"
    undoable: ClassVar[bool] = False
    winner: Seat | None
    result: str
    vp: tuple[int, int] | None
    breakdown: tuple[RawJson, ...]
    roll: Roll | None = None


@dataclass(frozen=True, slots=True)
class ObjectiveIdentified(Event):
    """Night Fight's mysterious objectives [L603-L615]: the marker ``seat`` controls for the
    first time is identified by a D6 on the zone's table (``result``: the row's id)."""

    kind: ClassVar[str] = "zone_objective_identified"
    marker: str
    seat: Seat
    roll: Roll
    result: str


@dataclass(frozen=True, slots=True)
class StratagemDiceRolled(Event):
    """A mission stratagem's dice, applied by the match: *Booby Traps* and *Proximity Mines*
    roll a D6 per model of ``target``, each 6 slays one (``damage``) [L185, L397]."""

    kind: ClassVar[str] = "narrative_stratagem_dice"
    stratagem: str
    target: str
    roll: Roll
    slain: int
    damage: tuple[ModelDamage, ...] = ()


@dataclass(frozen=True, slots=True)
class IronDisciplineRolled(Event):
    """*Iron Discipline* [L255]: a D6 per unit of the Defender gone to ground (``units``, in
    dice order); ``steady`` (2+) act normally in their first turn."""

    kind: ClassVar[str] = "narrative_iron_discipline"
    units: tuple[str, ...]
    roll: Roll
    steady: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class FogOfWarRolled(Event):
    """Night Fight's fog of war on a unit arriving by the 10th edition's own rules (Deep
    Strike, Strategic Reserves, Rapid Ingress) the first time [L591]: on 1-2 (``delayed``) it
    goes back into Reserve (its ``reserve`` kind) and must arrive in ``must_arrive``."""

    kind: ClassVar[str] = "narrative_fog_of_war"
    units: tuple[str, ...]
    roll: Roll
    delayed: bool
    reserve: ReserveKind | None = None
    must_arrive: int | None = None


NARRATIVE_EVENTS: tuple[type[Event], ...] = (
    FogOfWarRolled,
    StratagemDiceRolled,
    IronDisciplineRolled,
    ObjectiveIdentified,
    RolesChosen,
    TokensPlaced,
    TokensLaid,
    TokenRevealed,
    ForcesDeployed,
    GoToGroundDeclared,
    BombardmentResolved,
    BombardmentFinished,
    FirstTurnDecided,
    MissionStratagemUsed,
    AlarmChanged,
    ReserveRolled,
    AssaultReturnRolled,
    AttackerUnitsDown,
    SabotageAttempted,
    HidingPlaceSearched,
    SpyKilled,
    UnitEscaped,
    ZonesReported,
    NarrativeEvaluated,
    *EXPANSION_EVENTS,
)
