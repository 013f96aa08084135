"""The commands a player sends to a 10th-edition match (JSON: ``{"type": kind, ...fields}``).

Each command is validated against the state (see ``rules.decide``) and either refused with a
coded :class:`~app.engine.match.errors.Refusal` or turned into events. A unit id may name
either part of an Attached unit: the command applies to the whole Attached unit.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import ClassVar

from app.engine.match.codec import RawJson, Tagged, TaggedCodec
from app.engine.roller import DieRecord
from app.engine.wh40k10e.battle.state import (
    Formation,
    ModelDamage,
    MoveMode,
    Presence,
    WeaponUse,
)

__all__ = [
    "COMMAND_CODEC",
    "ApproveUndo",
    "ArriveFromReserves",
    "BattleShockTest",
    "Command",
    "CompleteCharge",
    "Concede",
    "ConfirmCoherency",
    "ConfirmResult",
    "Consolidate",
    "DeadlyDemise",
    "DeclareCharge",
    "DeclareFormations",
    "DeclarePowerLevels",
    "DeployUnit",
    "Disembark",
    "DisembarkFromDestroyedTransport",
    "DisputeResult",
    "EndPhase",
    "EndScouts",
    "Fight",
    "GainCommandPoint",
    "HazardousTest",
    "Move",
    "Pass",
    "PlaceObjective",
    "RefuseUndo",
    "Removal",
    "RemoveModels",
    "ReportEngagement",
    "ReportObjective",
    "ResolveAttack",
    "RollOff",
    "ScoutMove",
    "Shoot",
    "StartMove",
    "Undo",
    "UseStratagem",
]


class Command(Tagged):
    __slots__ = ()


@dataclass(frozen=True, slots=True)
class RollOff(Command):
    """Roll the current set-up roll-off (dice: A's die, then B's; a tie rolls again)."""

    kind: ClassVar[str] = "roll_off"


@dataclass(frozen=True, slots=True)
class PlaceObjective(Command):
    """Place an objective marker (the next unplaced one when ``marker`` is omitted)."""

    kind: ClassVar[str] = "place_objective"
    marker: str | None = None
    x: float | None = None
    y: float | None = None


@dataclass(frozen=True, slots=True)
class DeclareFormations(Command):
    """Submit (or re-submit, until both are in) your secret Battle Formations."""

    kind: ClassVar[str] = "declare_formations"
    formation: Formation


@dataclass(frozen=True, slots=True)
class DeployUnit(Command):
    kind: ClassVar[str] = "deploy_unit"
    unit: str
    infiltrate: bool = False


@dataclass(frozen=True, slots=True)
class ScoutMove(Command):
    kind: ClassVar[str] = "scout_move"
    unit: str


@dataclass(frozen=True, slots=True)
class EndScouts(Command):
    kind: ClassVar[str] = "end_scouts"


@dataclass(frozen=True, slots=True)
class BattleShockTest(Command):
    """Take the Battle-shock test of a unit Below Half-strength (2D6)."""

    kind: ClassVar[str] = "battle_shock_test"
    unit: str


@dataclass(frozen=True, slots=True)
class Move(Command):
    """Move a unit: ``crossing`` = models that will move over enemy models when Falling Back
    (Desperate Escape tests, [L1013-1018]); ``casualties`` = model slots you choose to lose;
    ``embark`` = a friendly Transport to embark in at the end of the move (``fits``: the
    player confirms its datasheet takes the unit, where the data cannot tell)."""

    kind: ClassVar[str] = "move"
    unit: str
    mode: MoveMode
    crossing: int = 0
    casualties: tuple[int, ...] = ()
    embark: str | None = None
    left_battlefield: bool = False
    # the player says the Transport's datasheet takes this unit (asked where the data
    # cannot tell, see ``UnitSpec.transport_fit``)
    fits: bool = False


@dataclass(frozen=True, slots=True)
class StartMove(Command):
    """Announce that ``unit`` is about to make a ``mode`` move (optional, before ``move``): the
    opponent may Fire Overwatch at it as it starts the move [L3422-3444]."""

    kind: ClassVar[str] = "start_move"
    unit: str
    mode: MoveMode


@dataclass(frozen=True, slots=True)
class Disembark(Command):
    kind: ClassVar[str] = "disembark"
    unit: str


@dataclass(frozen=True, slots=True)
class DisembarkFromDestroyedTransport(Command):
    kind: ClassVar[str] = "disembark_destroyed_transport"
    unit: str
    emergency: bool = False
    not_placed: int = 0


@dataclass(frozen=True, slots=True)
class DeadlyDemise(Command):
    """Resolve the Deadly Demise of your destroyed ``unit`` that rolled a 6: ``units`` are the
    units (friendly or enemy) within 6" of it, each of which suffers its mortal wounds
    [L1876-1893]; not the units that were embarked in it [L1315-1317]."""

    kind: ClassVar[str] = "deadly_demise"
    unit: str
    units: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class ArriveFromReserves(Command):
    kind: ClassVar[str] = "arrive"
    unit: str


@dataclass(frozen=True, slots=True)
class Shoot(Command):
    kind: ClassVar[str] = "shoot"
    unit: str
    targets: tuple[str, ...]
    assault_only: bool = False
    # the player states the shooting models are within 12" of the targets (Lone Operative
    # [L1476-1478]: a distance the match cannot measure)
    within_12: bool = False


@dataclass(frozen=True, slots=True)
class ResolveAttack(Command):
    """Apply the result of attacks against ``target`` (shooting, overwatch or fight).

    Give either ``allocations`` (damage per model, in the order applied: what the attack
    engine's resolution says) or ``damage`` (the damage of each unsaved attack, excess lost)
    and ``mortal_wounds`` (carried over), which the match allocates by the rules
    ([L1700-1713], [L3238-3246], [L1816-1824]). ``dice`` and ``seed`` record the roll.

    ``weapons`` names the weapons used (part, weapon, models): a unit shoots, or fights, once
    per phase and each of its models' weapons is used once [L1401-1405], [L1413-1444],
    [L2593-2603], so a later attack by the unit in the phase may only use weapons not used
    yet (splitting fire between targets stays possible). An attack that names no weapon is
    the whole unit's: nothing else of the unit attacks in that phase.
    """

    kind: ClassVar[str] = "resolve_attack"
    attacker: str
    target: str
    allocations: tuple[ModelDamage, ...] = ()
    damage: tuple[int, ...] = ()
    mortal_wounds: int = 0
    weapon: str = ""
    seed: int | None = None
    dice: tuple[DieRecord, ...] = ()
    request: RawJson = None
    weapons: tuple[WeaponUse, ...] = ()


@dataclass(frozen=True, slots=True)
class HazardousTest(Command):
    """One Hazardous test per Hazardous weapon used ([L2278-2309]); ``on_unit`` picks the
    part of an Attached unit that takes a failure (the CHARACTER takes 3 mortal wounds)."""

    kind: ClassVar[str] = "hazardous_test"
    unit: str
    weapons: int = 1
    on_unit: str | None = None


@dataclass(frozen=True, slots=True)
class DeclareCharge(Command):
    kind: ClassVar[str] = "declare_charge"
    unit: str
    targets: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class CompleteCharge(Command):
    """Say whether the Charge move could be made; ``needed`` (inches) checks it against the
    roll. A success engages the charging unit with every target [L2413-2440]."""

    kind: ClassVar[str] = "complete_charge"
    unit: str
    success: bool
    needed: int | None = None


@dataclass(frozen=True, slots=True)
class Fight(Command):
    kind: ClassVar[str] = "fight"
    unit: str
    targets: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Consolidate(Command):
    """End the fighting unit's activation; ``engaged_with`` reports its engagement afterwards
    (omit it when nothing changed)."""

    kind: ClassVar[str] = "consolidate"
    unit: str
    engaged_with: tuple[str, ...] | None = None


@dataclass(frozen=True, slots=True)
class ReportEngagement(Command):
    """Correct which enemy units one of your units is within Engagement Range of."""

    kind: ClassVar[str] = "report_engagement"
    unit: str
    engaged_with: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class ReportObjective(Command):
    """Which of your units (and how many of their models) are within range of a marker."""

    kind: ClassVar[str] = "report_objective"
    marker: str
    units: tuple[Presence, ...]


@dataclass(frozen=True, slots=True)
class UseStratagem(Command):
    """Use a core Stratagem (see ``stratagems.CORE_STRATAGEMS``).

    ``unit``: your unit it targets; ``enemy``: the enemy unit it acts on (Fire Overwatch,
    Heroic Intervention, Grenade, Tank Shock); ``strength``: the melee weapon's Strength for
    Tank Shock; ``die``: which die of a test a Command Re-roll re-rolls; ``note``: for a
    Command Re-roll of a roll made inside an attack resolution (e.g. ``"wound roll"``).
    """

    kind: ClassVar[str] = "use_stratagem"
    stratagem: str
    unit: str | None = None
    enemy: str | None = None
    strength: int | None = None
    die: int | None = None
    note: str = ""
    within_12: bool = False  # Fire Overwatch at a Lone Operative: the player states 12"


@dataclass(frozen=True, slots=True)
class GainCommandPoint(Command):
    """Gain 1 CP from another source (at most 1 per battle round, [L843-849])."""

    kind: ClassVar[str] = "gain_command_point"
    source: str


@dataclass(frozen=True, slots=True)
class RemoveModels(Command):
    kind: ClassVar[str] = "remove_models"
    unit: str
    models: tuple[int, ...]
    cause: str = "coherency"


@dataclass(frozen=True, slots=True)
class Removal:
    """Model slots (from 0) of one unit removed at the end of the turn: out of coherency."""

    unit: str
    models: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class ConfirmCoherency(Command):
    """At the end of a turn, answer the coherency check [L449-456]: the player's units are in
    Unit Coherency once ``removals`` (possibly none) are taken away."""

    kind: ClassVar[str] = "confirm_coherency"
    removals: tuple[Removal, ...] = ()


@dataclass(frozen=True, slots=True)
class Pass(Command):
    """Decline a reaction window (the end of the opponent's Movement phase)."""

    kind: ClassVar[str] = "pass"


@dataclass(frozen=True, slots=True)
class EndPhase(Command):
    kind: ClassVar[str] = "end_phase"


@dataclass(frozen=True, slots=True)
class Concede(Command):
    """Concede the battle: it cannot be undone. ``confirm`` says the player confirmed it (the
    match service refuses a concession without it; replaying a log needs no confirmation)."""

    kind: ClassVar[str] = "concede"
    confirm: bool = False


@dataclass(frozen=True, slots=True)
class ConfirmResult(Command):
    kind: ClassVar[str] = "confirm_result"


@dataclass(frozen=True, slots=True)
class DisputeResult(Command):
    kind: ClassVar[str] = "dispute_result"
    reason: str


@dataclass(frozen=True, slots=True)
class Undo(Command):
    """Undo your own latest action (appends a compensating event); an action that rolled
    dice is only asked for: your opponent approves or refuses."""

    kind: ClassVar[str] = "undo"


@dataclass(frozen=True, slots=True)
class ApproveUndo(Command):
    """Approve your opponent's request to undo action ``batch`` (its dice stay in the log)."""

    kind: ClassVar[str] = "approve_undo"
    batch: int


@dataclass(frozen=True, slots=True)
class RefuseUndo(Command):
    """Refuse your opponent's request to undo action ``batch``: it stands."""

    kind: ClassVar[str] = "refuse_undo"
    batch: int


# -- narrative missions (battle/narrative.py) -------------------------------------------------


@dataclass(frozen=True, slots=True)
class DeclarePowerLevels(Command):
    """A narrative mission counting Power Level: the Power Level of each of your units, 1 to
    100, before the Attacker is chosen (battle/power_levels.py)."""

    kind: ClassVar[str] = "declare_power_levels"
    levels: Mapping[str, int]


@dataclass(frozen=True, slots=True)
class PlaceTokens(Command):
    """Hidden deployment: one token per unit set up now (a transport, not its passengers),
    ``None`` for a decoy; ``reserves``: units that start in Reserve instead."""

    kind: ClassVar[str] = "place_tokens"
    tokens: Mapping[str, str | None]
    reserves: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class DeployForces(Command):
    """Set up ``units`` (with their attached and embarked units); the rest of the army that
    the step concerns starts in Reserve (``reserves`` must name them all)."""

    kind: ClassVar[str] = "deploy_forces"
    units: tuple[str, ...]
    reserves: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class GoToGround(Command):
    """The Defender's INFANTRY units that go to ground should the bombardment hit them."""

    kind: ClassVar[str] = "go_to_ground"
    units: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Bombard(Command):
    """The Attacker's preliminary bombardment: one D6 per enemy unit on the battlefield, in
    unit order, then the damage die of each unit hit (dice in that order)."""

    kind: ClassVar[str] = "bombard"


@dataclass(frozen=True, slots=True)
class UseMissionStratagem(Command):
    kind: ClassVar[str] = "use_mission_stratagem"
    stratagem: str
    cp: int | None = None
    target: str | None = None


@dataclass(frozen=True, slots=True)
class RaiseAlarm(Command):
    """Report what raised the alarm: ``detected`` (an Attacker model within a sentry's
    detection range at the end of a Movement phase), ``sentry_survived_fight`` or
    ``psychic_power``."""

    kind: ClassVar[str] = "raise_alarm"
    cause: str


@dataclass(frozen=True, slots=True)
class ReserveRoll(Command):
    """Bring a mission reserve unit in at the end of your Movement phase (rolled if the
    mission needs a roll)."""

    kind: ClassVar[str] = "reserve_roll"
    unit: str


@dataclass(frozen=True, slots=True)
class AssaultReturn(Command):
    """Sustained assault: roll for every destroyed Attacker unit (end of your Movement phase)."""

    kind: ClassVar[str] = "assault_return"


@dataclass(frozen=True, slots=True)
class CullUnit(Command):
    kind: ClassVar[str] = "cull_unit"
    unit: str


@dataclass(frozen=True, slots=True)
class AttemptSabotage(Command):
    kind: ClassVar[str] = "attempt_sabotage"
    unit: str


@dataclass(frozen=True, slots=True)
class SearchHidingPlace(Command):
    kind: ClassVar[str] = "search_hiding_place"
    unit: str
    place: str


@dataclass(frozen=True, slots=True)
class ReportSpyKilled(Command):
    kind: ClassVar[str] = "report_spy_killed"


@dataclass(frozen=True, slots=True)
class ReportSpyUnplaced(Command):
    """Rescue: the spy the Attacker found cannot be placed; the Attacker loses at once [L519]."""

    kind: ClassVar[str] = "report_spy_unplaced"


@dataclass(frozen=True, slots=True)
class EscapeUnit(Command):
    kind: ClassVar[str] = "escape_unit"
    unit: str


@dataclass(frozen=True, slots=True)
class ReportZones(Command):
    kind: ClassVar[str] = "report_zones"
    first_line: tuple[str, ...] = ()
    second_line: tuple[str, ...] = ()


# -- the expansions of the narrative missions (battle/narrative_expansions.py) ----------------


@dataclass(frozen=True, slots=True)
class PlaceBuilding(Command):
    """The Defender sets up a Bastion or Defence Emplacement (Planetstrike), a Bunker or a
    Fortress (Stronghold Assault) before the first turn; ``weapon``: the emplacement's gun, or
    a Fortress's extra heavy bolters (0-4) as ``"heavy-bolter:N"``."""

    kind: ClassVar[str] = "place_building"
    building: str
    weapon: str | None = None


@dataclass(frozen=True, slots=True)
class OccupyBuilding(Command):
    """Your INFANTRY unit enters a building (as embarking): a Bunker or Fortress nobody holds
    comes under your control."""

    kind: ClassVar[str] = "occupy_building"
    building: str
    unit: str


@dataclass(frozen=True, slots=True)
class LeaveBuilding(Command):
    kind: ClassVar[str] = "leave_building"
    building: str
    unit: str


@dataclass(frozen=True, slots=True)
class DamageBuilding(Command):
    """Wounds your attacks (resolved at the table) took off an enemy building; ``demolitions``:
    the Attacker's wound rolls of 6+ fighting a Bunker or Fortress (1 mortal wound each)."""

    kind: ClassVar[str] = "damage_building"
    building: str
    wounds: int
    demolitions: int = 0


@dataclass(frozen=True, slots=True)
class GarrisonRoll(Command):
    """A destroyed building's garrison disembarks: a D6 per model, each 1-3 (1 with *Escape
    Hatch*) slays one; ``order``: the occupying units in the order their models are slain
    (default: the order they entered)."""

    kind: ClassVar[str] = "garrison_roll"
    building: str
    order: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Firestorm(Command):
    """The Attacker's Firestorm Attacks: ``attacks`` (the number the players agreed: no mission
    sets it), ``hits``: for each numbered die (1-6), the units and buildings within 3" of it;
    ``go_to_ground``: INFANTRY units that go to ground if hit."""

    kind: ClassVar[str] = "firestorm"
    attacks: int
    hits: Mapping[str, tuple[str, ...]]
    go_to_ground: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class LeaveAirspace(Command):
    """Your AIRCRAFT moves off the battlefield in your Movement phase: it left combat
    airspace."""

    kind: ClassVar[str] = "leave_airspace"
    unit: str


@dataclass(frozen=True, slots=True)
class ReturnToAirspace(Command):
    """End of your Movement phase: an AIRCRAFT that left in an earlier turn tries to return
    (D6: 1-2 delayed, 3+ back; no roll after *Refuel, Rearm, Repair*)."""

    kind: ClassVar[str] = "return_to_airspace"
    unit: str


@dataclass(frozen=True, slots=True)
class DogfightPick(Command):
    """The Dogfight (start of the Shooting phase): one of your AIRCRAFT and the enemy AIRCRAFT
    it shoots; ``arc``: the target's arc facing it (front, side, rear)."""

    kind: ClassVar[str] = "dogfight_pick"
    aircraft: str
    target: str
    arc: str


@dataclass(frozen=True, slots=True)
class DogfightPass(Command):
    """None of your other AIRCRAFT dogfights this phase."""

    kind: ClassVar[str] = "dogfight_pass"


@dataclass(frozen=True, slots=True)
class TriggerTrap(Command):
    """Your secret *Booby Traps* ruin: the enemy ``unit`` moved into it (``advanced``: it
    Advanced): it suffers D3 mortal wounds (D6 if it Advanced)."""

    kind: ClassVar[str] = "trigger_trap"
    unit: str
    advanced: bool = False


@dataclass(frozen=True, slots=True)
class MedicalRoll(Command):
    """Your *Medical Centre* ruin: ``unit`` occupying it just lost ``wounds``; a D6 each, every
    6 keeps one."""

    kind: ClassVar[str] = "medical_roll"
    unit: str
    wounds: int


@dataclass(frozen=True, slots=True)
class AttackBuilding(Command):
    """Your unit attacks an enemy building, rolled by the match with the building's profile
    from the pack (``attacks``: the combat contract's attack entries, ``{"models", "weapon"}``:
    ranged in your Shooting phase, melee in the Fight phase, where they hit automatically)."""

    kind: ClassVar[str] = "attack_building"
    unit: str
    building: str
    attacks: RawJson = None


@dataclass(frozen=True, slots=True)
class BuildingShoots(Command):
    """Your building's ``weapon`` (every copy it carries) shoots an enemy unit in your Shooting
    phase, rolled by the match with the pack's profile and BS; ``save`` (and
    ``invulnerable_save``, ``toughness`` where the datasheet data lacks it) are the target's;
    ``within_18``: the target is within 18" (a missile silo cannot fire at it)."""

    kind: ClassVar[str] = "building_shoots"
    building: str
    weapon: str
    target: str
    save: int
    invulnerable_save: int | None = None
    toughness: int | None = None
    within_18: bool = False


@dataclass(frozen=True, slots=True)
class SupportFire(Command):
    """Night Fight's *Support fire* [L615] at the end of your Shooting phase: for each marker
    you control identified as Support fire, the enemy unit within 36" it aims at (``targets``:
    marker -> unit); a D6 each, on 5+ D3 mortal wounds; then the phase ends."""

    kind: ClassVar[str] = "support_fire"
    targets: Mapping[str, str]


EXPANSION_COMMANDS: tuple[type[Command], ...] = (
    SupportFire,
    AttackBuilding,
    BuildingShoots,
    PlaceBuilding,
    OccupyBuilding,
    LeaveBuilding,
    DamageBuilding,
    GarrisonRoll,
    Firestorm,
    LeaveAirspace,
    ReturnToAirspace,
    DogfightPick,
    DogfightPass,
    TriggerTrap,
    MedicalRoll,
)


NARRATIVE_COMMANDS: tuple[type[Command], ...] = (
    DeclarePowerLevels,
    PlaceTokens,
    DeployForces,
    GoToGround,
    Bombard,
    UseMissionStratagem,
    RaiseAlarm,
    ReserveRoll,
    AssaultReturn,
    CullUnit,
    AttemptSabotage,
    SearchHidingPlace,
    ReportSpyKilled,
    ReportSpyUnplaced,
    EscapeUnit,
    ReportZones,
    *EXPANSION_COMMANDS,
)


COMMAND_CODEC = TaggedCodec(
    "command",
    [
        RollOff,
        PlaceObjective,
        DeclareFormations,
        DeployUnit,
        ScoutMove,
        EndScouts,
        BattleShockTest,
        StartMove,
        Move,
        Disembark,
        DisembarkFromDestroyedTransport,
        ArriveFromReserves,
        Shoot,
        ResolveAttack,
        HazardousTest,
        DeclareCharge,
        CompleteCharge,
        Fight,
        Consolidate,
        ReportEngagement,
        DeadlyDemise,
        ReportObjective,
        UseStratagem,
        GainCommandPoint,
        RemoveModels,
        ConfirmCoherency,
        Pass,
        EndPhase,
        Concede,
        ConfirmResult,
        DisputeResult,
        Undo,
        ApproveUndo,
        RefuseUndo,
        *NARRATIVE_COMMANDS,
    ],
)
