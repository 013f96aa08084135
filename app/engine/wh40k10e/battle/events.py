"""The events of a 10th-edition battle: facts, with every die and every resolved outcome.

An event never needs the rules to be re-applied: casualties, damage per model, roll results and
winners are decided when the command is accepted and recorded here, so replay is a plain fold.
Every event that rolled dice carries a :class:`~app.engine.match.dice.Roll` (seed + dice).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import ClassVar

from app.engine.match.codec import RawJson, TaggedCodec
from app.engine.match.dice import Roll
from app.engine.match.events import Event, Undone, UndoRefused, UndoRequested
from app.engine.roller import DieRecord
from app.engine.wh40k10e.battle.narrative import NARRATIVE_EVENTS
from app.engine.wh40k10e.battle.power_levels import POWER_EVENTS
from app.engine.wh40k10e.battle.setup import MatchSetup, Seat
from app.engine.wh40k10e.battle.state import (
    DieLoss,
    Effect,
    Formation,
    ModelDamage,
    MoveMode,
    Phase,
    Presence,
    ReserveKind,
    Result,
    Stage,
    Step,
    WeaponUse,
)

__all__ = [
    "EVENT_CODEC",
    "AttackResolved",
    "BattleEnded",
    "BattleShockCancelled",
    "BattleShockCleared",
    "BattleShockTested",
    "ChargeDeclared",
    "ChargeMoveMade",
    "CoherencyCheckOpened",
    "CoherencyConfirmed",
    "CommandPointsGained",
    "DeadlyDemiseResolved",
    "DeadlyDemiseRolled",
    "EffectApplied",
    "EngagementReported",
    "ExtraRoundRolled",
    "FightsNext",
    "FormationDeclared",
    "FormationSubmitted",
    "FormationsRevealed",
    "HazardousTested",
    "MatchCreated",
    "ModelsRemoved",
    "MortalWoundsInflicted",
    "MoveStarted",
    "ObjectiveControlChanged",
    "ObjectivePlaced",
    "PhaseEnded",
    "PhaseStarted",
    "PresenceReported",
    "ReactionWindowClosed",
    "ReactionWindowOpened",
    "ResultConfirmed",
    "ResultDisputed",
    "RollOffMade",
    "RollRerolled",
    "RoundEnded",
    "RoundStarted",
    "ScoutMoved",
    "ScoutsFinished",
    "SetupStepStarted",
    "StepStarted",
    "StratagemUsed",
    "TransportDestroyed",
    "TurnEnded",
    "TurnStarted",
    "UnitArrived",
    "UnitConsolidated",
    "UnitDeployed",
    "UnitDisembarked",
    "UnitMoved",
    "UnitSelectedToFight",
    "UnitSelectedToShoot",
    "UnitsDestroyed",
    "VictoryPointsScored",
]


# -- set-up ----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class MatchCreated(Event):
    kind: ClassVar[str] = "match_created"
    undoable: ClassVar[bool] = False
    setup: MatchSetup


@dataclass(frozen=True, slots=True)
class SetupStepStarted(Event):
    kind: ClassVar[str] = "setup_step_started"
    index: int
    stage: Stage
    purpose: str | None = None
    next_seat: Seat | None = None


@dataclass(frozen=True, slots=True)
class RollOffMade(Event):
    """A roll-off [L679-683]: A's die then B's die; ``winner`` None means a tie (roll again)."""

    kind: ClassVar[str] = "roll_off_made"
    purpose: str
    roll: Roll
    winner: Seat | None


@dataclass(frozen=True, slots=True)
class ObjectivePlaced(Event):
    kind: ClassVar[str] = "objective_placed"
    marker: str
    seat: Seat
    x: float | None = None
    y: float | None = None


@dataclass(frozen=True, slots=True)
class FormationSubmitted(Event):
    """Public: ``seat`` has submitted its Battle Formations (the content stays secret)."""

    kind: ClassVar[str] = "formation_submitted"
    seat: Seat


@dataclass(frozen=True, slots=True)
class FormationDeclared(Event):
    """SECRET, logged for ``seat`` only: its Battle Formations [L4453-4485]."""

    kind: ClassVar[str] = "formation_declared"
    undoable: ClassVar[bool] = False
    seat: Seat
    formation: Formation


@dataclass(frozen=True, slots=True)
class FormationsRevealed(Event):
    """Both formations, public once both players have submitted."""

    kind: ClassVar[str] = "formations_revealed"
    undoable: ClassVar[bool] = False
    formations: Mapping[Seat, Formation]
    held_back: tuple[str, ...] = ()  # empty Dedicated Transports [L4346-4353]


@dataclass(frozen=True, slots=True)
class UnitDeployed(Event):
    kind: ClassVar[str] = "unit_deployed"
    seat: Seat
    units: tuple[str, ...]
    infiltrate: bool = False


@dataclass(frozen=True, slots=True)
class ScoutMoved(Event):
    kind: ClassVar[str] = "scout_moved"
    units: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class ScoutsFinished(Event):
    kind: ClassVar[str] = "scouts_finished"
    seat: Seat


# -- turn structure --------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class RoundStarted(Event):
    kind: ClassVar[str] = "round_started"
    round: int


@dataclass(frozen=True, slots=True)
class TurnStarted(Event):
    kind: ClassVar[str] = "turn_started"
    round: int
    turn: int
    seat: Seat


@dataclass(frozen=True, slots=True)
class PhaseStarted(Event):
    kind: ClassVar[str] = "phase_started"
    phase: Phase
    step: Step


@dataclass(frozen=True, slots=True)
class StepStarted(Event):
    kind: ClassVar[str] = "step_started"
    step: Step


@dataclass(frozen=True, slots=True)
class PhaseEnded(Event):
    kind: ClassVar[str] = "phase_ended"
    phase: Phase


@dataclass(frozen=True, slots=True)
class TurnEnded(Event):
    kind: ClassVar[str] = "turn_ended"
    seat: Seat


@dataclass(frozen=True, slots=True)
class RoundEnded(Event):
    kind: ClassVar[str] = "round_ended"
    round: int


@dataclass(frozen=True, slots=True)
class ExtraRoundRolled(Event):
    """A mission's battle-length roll at the end of a round."""

    kind: ClassVar[str] = "extra_round_rolled"
    round: int
    seat: Seat
    roll: Roll
    continues: bool


@dataclass(frozen=True, slots=True)
class ReactionWindowOpened(Event):
    """The end of the Movement phase waits for ``seat`` (Rapid Ingress, [L3446-3464])."""

    kind: ClassVar[str] = "reaction_window_opened"
    seat: Seat


@dataclass(frozen=True, slots=True)
class ReactionWindowClosed(Event):
    kind: ClassVar[str] = "reaction_window_closed"
    seat: Seat


# -- command phase ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class CommandPointsGained(Event):
    """``extra`` marks a gain outside the Command-phase CP (at most 1 per round, [L843-849])."""

    kind: ClassVar[str] = "command_points_gained"
    seat: Seat
    amount: int
    source: str
    extra: bool = False


@dataclass(frozen=True, slots=True)
class BattleShockCleared(Event):
    kind: ClassVar[str] = "battle_shock_cleared"
    units: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class BattleShockTested(Event):
    kind: ClassVar[str] = "battle_shock_tested"
    units: tuple[str, ...]
    roll: Roll
    needed: int
    passed: bool


@dataclass(frozen=True, slots=True)
class BattleShockCancelled(Event):
    kind: ClassVar[str] = "battle_shock_cancelled"
    units: tuple[str, ...]


# -- movement --------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class MoveStarted(Event):
    """A unit is about to make a ``mode`` move: Fire Overwatch may answer it [L3422-3444]."""

    kind: ClassVar[str] = "move_started"
    units: tuple[str, ...]
    mode: MoveMode


@dataclass(frozen=True, slots=True)
class UnitMoved(Event):
    """A move; ``roll`` is the Advance roll, or the Desperate Escape tests of a Fall Back
    ([L1012-1026]) with the models they destroyed in ``damage``."""

    kind: ClassVar[str] = "unit_moved"
    units: tuple[str, ...]
    mode: MoveMode
    roll: Roll | None = None
    losses: tuple[DieLoss, ...] = ()
    embarked_in: str | None = None
    left_battlefield: bool = False


@dataclass(frozen=True, slots=True)
class UnitDisembarked(Event):
    kind: ClassVar[str] = "unit_disembarked"
    units: tuple[str, ...]
    transport: str
    counts_as_moved: bool = False
    forced: bool = False  # from a destroyed Transport [L1309-1341]
    emergency: bool = False
    roll: Roll | None = None
    damage: tuple[ModelDamage, ...] = ()
    fnp: Roll | None = None  # Feel No Pain dice for the mortal wounds [L1857-1869]


@dataclass(frozen=True, slots=True)
class UnitArrived(Event):
    kind: ClassVar[str] = "unit_arrived"
    units: tuple[str, ...]
    reserve: ReserveKind
    rapid_ingress: bool = False


@dataclass(frozen=True, slots=True)
class TransportDestroyed(Event):
    kind: ClassVar[str] = "transport_destroyed"
    transport: str
    passengers: tuple[str, ...]


# -- shooting, charge, fight -----------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class UnitSelectedToShoot(Event):
    kind: ClassVar[str] = "unit_selected_to_shoot"
    units: tuple[str, ...]
    targets: tuple[str, ...]
    overwatch: bool = False
    assault_only: bool = False


@dataclass(frozen=True, slots=True)
class AttackResolved(Event):
    """Attacks of ``attacker`` against ``target``: damage per model, with the dice and seed."""

    kind: ClassVar[str] = "attack_resolved"
    attacker: str
    target: str
    damage: tuple[ModelDamage, ...]
    wounds_lost: int
    models_destroyed: int
    weapon: str = ""
    seed: int | None = None
    dice: tuple[DieRecord, ...] = ()
    request: RawJson = None
    # the weapons used; () for an attack of the whole unit (and every event logged before
    # weapons were recorded: such an attack used all the unit's weapons of the phase)
    weapons: tuple[WeaponUse, ...] = ()

    def rolled_dice(self) -> bool:
        return bool(self.dice)


@dataclass(frozen=True, slots=True)
class HazardousTested(Event):
    kind: ClassVar[str] = "hazardous_tested"
    units: tuple[str, ...]
    roll: Roll
    losses: tuple[DieLoss, ...]
    fnp: Roll | None = None  # Feel No Pain dice for the mortal wounds [L1857-1869]


@dataclass(frozen=True, slots=True)
class MortalWoundsInflicted(Event):
    """Mortal wounds from a Stratagem (Grenade, Tank Shock) or a Deadly Demise; ``fnp`` the
    Feel No Pain dice rolled against them [L1857-1869] (``damage`` is what got through)."""

    kind: ClassVar[str] = "mortal_wounds_inflicted"
    source: str
    target: str
    roll: Roll
    mortal_wounds: int
    damage: tuple[ModelDamage, ...]
    fnp: Roll | None = None


@dataclass(frozen=True, slots=True)
class DeadlyDemiseRolled(Event):
    """The D6 of a Deadly Demise model of ``unit`` just destroyed (``models``: how many of its
    destroyed models this roll is for, one D6 each) [L1876-1882]; ``explodes`` on a 6: its
    controller then names the units within 6"."""

    kind: ClassVar[str] = "deadly_demise_rolled"
    unit: str
    models: int
    roll: Roll
    explodes: int  # how many of the dice are 6s


@dataclass(frozen=True, slots=True)
class DeadlyDemiseResolved(Event):
    """The controller named the units within 6" of ``unit`` (their mortal wounds follow as
    :class:`MortalWoundsInflicted` events)."""

    kind: ClassVar[str] = "deadly_demise_resolved"
    unit: str
    units: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class ModelsRemoved(Event):
    """Models removed outside an attack (coherency clean-up [L449-456], a player's fix)."""

    kind: ClassVar[str] = "models_removed"
    unit: str
    models: tuple[int, ...]
    cause: str


@dataclass(frozen=True, slots=True)
class CoherencyCheckOpened(Event):
    """The end of the turn: ``seats`` must confirm that their ``units`` (which lost models
    this turn) are in Unit Coherency, or remove models until they are [L449-456]."""

    kind: ClassVar[str] = "coherency_check_opened"
    seats: tuple[Seat, ...]
    units: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class CoherencyConfirmed(Event):
    """``seat`` answered the coherency check, having removed ``removed`` models (each as a
    ``models_removed`` event, cause ``coherency``, just before)."""

    kind: ClassVar[str] = "coherency_confirmed"
    seat: Seat
    removed: int = 0


@dataclass(frozen=True, slots=True)
class UnitsDestroyed(Event):
    """Units that count as destroyed (Reserves at the end, an empty Dedicated Transport)."""

    kind: ClassVar[str] = "units_destroyed"
    units: tuple[str, ...]
    cause: str


@dataclass(frozen=True, slots=True)
class ChargeDeclared(Event):
    kind: ClassVar[str] = "charge_declared"
    units: tuple[str, ...]
    targets: tuple[str, ...]
    roll: Roll
    heroic: bool = False


@dataclass(frozen=True, slots=True)
class ChargeMoveMade(Event):
    kind: ClassVar[str] = "charge_move_made"
    units: tuple[str, ...]
    success: bool
    engaged_with: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class UnitSelectedToFight(Event):
    kind: ClassVar[str] = "unit_selected_to_fight"
    units: tuple[str, ...]
    seat: Seat
    step: Step
    targets: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class UnitConsolidated(Event):
    kind: ClassVar[str] = "unit_consolidated"
    units: tuple[str, ...]
    engaged_with: tuple[str, ...] | None = None


@dataclass(frozen=True, slots=True)
class FightsNext(Event):
    kind: ClassVar[str] = "fights_next"
    unit: str


@dataclass(frozen=True, slots=True)
class EngagementReported(Event):
    kind: ClassVar[str] = "engagement_reported"
    units: tuple[str, ...]
    engaged_with: tuple[str, ...]


# -- objectives, stratagems, result ----------------------------------------------------------


@dataclass(frozen=True, slots=True)
class PresenceReported(Event):
    kind: ClassVar[str] = "presence_reported"
    marker: str
    seat: Seat
    units: tuple[Presence, ...]


@dataclass(frozen=True, slots=True)
class ObjectiveControlChanged(Event):
    kind: ClassVar[str] = "objective_control_changed"
    control: Mapping[str, Seat | None]
    levels: Mapping[str, Mapping[Seat, int]] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class VictoryPointsScored(Event):
    kind: ClassVar[str] = "victory_points_scored"
    seat: Seat
    vp: int
    rule: str
    markers: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class StratagemUsed(Event):
    kind: ClassVar[str] = "stratagem_used"
    seat: Seat
    stratagem: str
    cp: int
    unit: str | None = None
    enemy: str | None = None
    note: str = ""


@dataclass(frozen=True, slots=True)
class EffectApplied(Event):
    kind: ClassVar[str] = "effect_applied"
    units: tuple[str, ...]
    effect: Effect


@dataclass(frozen=True, slots=True)
class RollRerolled(Event):
    """Command Re-roll of a match roll: the new dice, and models restored or lost."""

    kind: ClassVar[str] = "roll_rerolled"
    unit: str
    roll_kind: str
    roll: Roll
    restored: tuple[ModelDamage, ...] = ()
    damage: tuple[ModelDamage, ...] = ()
    fnp: Roll | None = None  # Feel No Pain dice for a new failure's mortal wounds


@dataclass(frozen=True, slots=True)
class BattleEnded(Event):
    kind: ClassVar[str] = "battle_ended"
    undoable: ClassVar[bool] = False
    result: Result


@dataclass(frozen=True, slots=True)
class ResultConfirmed(Event):
    kind: ClassVar[str] = "result_confirmed"
    undoable: ClassVar[bool] = False
    seat: Seat


@dataclass(frozen=True, slots=True)
class ResultDisputed(Event):
    kind: ClassVar[str] = "result_disputed"
    undoable: ClassVar[bool] = False
    seat: Seat
    reason: str


EVENT_CODEC = TaggedCodec(
    "event",
    [
        Undone,
        UndoRequested,
        UndoRefused,
        MatchCreated,
        SetupStepStarted,
        RollOffMade,
        ObjectivePlaced,
        FormationSubmitted,
        FormationDeclared,
        FormationsRevealed,
        UnitDeployed,
        ScoutMoved,
        ScoutsFinished,
        RoundStarted,
        TurnStarted,
        PhaseStarted,
        StepStarted,
        PhaseEnded,
        TurnEnded,
        RoundEnded,
        ExtraRoundRolled,
        ReactionWindowOpened,
        ReactionWindowClosed,
        CommandPointsGained,
        BattleShockCleared,
        BattleShockTested,
        BattleShockCancelled,
        MoveStarted,
        UnitMoved,
        UnitDisembarked,
        UnitArrived,
        TransportDestroyed,
        UnitSelectedToShoot,
        AttackResolved,
        HazardousTested,
        MortalWoundsInflicted,
        DeadlyDemiseRolled,
        DeadlyDemiseResolved,
        ModelsRemoved,
        CoherencyCheckOpened,
        CoherencyConfirmed,
        UnitsDestroyed,
        ChargeDeclared,
        ChargeMoveMade,
        UnitSelectedToFight,
        UnitConsolidated,
        FightsNext,
        EngagementReported,
        PresenceReported,
        ObjectiveControlChanged,
        VictoryPointsScored,
        StratagemUsed,
        EffectApplied,
        RollRerolled,
        BattleEnded,
        ResultConfirmed,
        ResultDisputed,
        *NARRATIVE_EVENTS,
        *POWER_EVENTS,
    ],
)
