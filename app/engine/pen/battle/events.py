"""The events of a PEN battle. Each carries what ``evolve`` needs, dice included (``roll``);
results are written as the values they leave (models left, wounds carried), so replay never
re-computes an attack."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from app.engine.match.codec import TaggedCodec
from app.engine.match.dice import Roll
from app.engine.match.events import Event, Undone, UndoRefused, UndoRequested
from app.engine.pen.battle.setup import BattleSetup
from app.engine.pen.battle.state import ReserveMode, Speed

__all__ = [
    "EVENT_CODEC",
    "NO_DICE",
    "AccidentTested",
    "ActivationEnded",
    "ActivationPassed",
    "AlertDeclared",
    "AlertEnded",
    "BattleCreated",
    "BattleEnded",
    "ChallengeAnswered",
    "ChallengeIssued",
    "ChargeDeclared",
    "CombatFought",
    "CombatResolved",
    "Consolidated",
    "ControlReported",
    "DawnRolled",
    "Disembarked",
    "Disengaged",
    "Embarked",
    "FirstChosen",
    "GameLengthRolled",
    "HitAndRunDeclared",
    "OutOfControlEnded",
    "PassengersHit",
    "PhaseStarted",
    "PoisonTested",
    "Rammed",
    "Regenerated",
    "ReserveDeclared",
    "ReservesRolled",
    "ResultConfirmed",
    "Retreated",
    "RollOffMade",
    "RoundStarted",
    "ScoutMoved",
    "SquadChosen",
    "SquadOutcome",
    "StepEnded",
    "Stopped",
    "TestTaken",
    "TurnStarted",
    "UnitArrived",
    "UnitDeployed",
    "UnitMoved",
    "UnitShot",
    "VehicleDamage",
    "WentToGround",
]

NO_DICE = Roll(seed=None, dice=())


@dataclass(frozen=True, slots=True)
class BattleCreated(Event):
    kind: ClassVar[str] = "battle_created"
    undoable: ClassVar[bool] = False
    setup: BattleSetup


@dataclass(frozen=True, slots=True)
class ReserveDeclared(Event):
    kind: ClassVar[str] = "reserve_declared"
    unit: str
    mode: ReserveMode


@dataclass(frozen=True, slots=True)
class StepEnded(Event):
    kind: ClassVar[str] = "step_ended"
    seat: str


@dataclass(frozen=True, slots=True)
class RollOffMade(Event):
    kind: ClassVar[str] = "roll_off_made"
    roll: Roll
    winner: str


@dataclass(frozen=True, slots=True)
class FirstChosen(Event):
    kind: ClassVar[str] = "first_chosen"
    seat: str


@dataclass(frozen=True, slots=True)
class UnitDeployed(Event):
    kind: ClassVar[str] = "unit_deployed"
    unit: str


@dataclass(frozen=True, slots=True)
class ScoutMoved(Event):
    kind: ClassVar[str] = "scout_moved"
    unit: str
    inches: int


@dataclass(frozen=True, slots=True)
class TurnStarted(Event):
    kind: ClassVar[str] = "turn_started"
    round: int
    turn: int


@dataclass(frozen=True, slots=True)
class DawnRolled(Event):
    kind: ClassVar[str] = "dawn_rolled"
    roll: Roll
    day: bool


@dataclass(frozen=True, slots=True)
class ReservesRolled(Event):
    kind: ClassVar[str] = "reserves_rolled"
    roll: Roll
    arrived: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class TestTaken(Event):
    """A morale, pinning or regroup test; ``retreat`` / ``ground`` say what a failure did."""

    kind: ClassVar[str] = "test_taken"
    unit: str
    test: str
    roll: Roll
    malus: int
    passed: bool


@dataclass(frozen=True, slots=True)
class PhaseStarted(Event):
    kind: ClassVar[str] = "phase_started"
    phase: str


@dataclass(frozen=True, slots=True)
class UnitArrived(Event):
    kind: ClassVar[str] = "unit_arrived"
    unit: str
    mode: ReserveMode
    speed: Speed
    inches: int
    roll: Roll
    edge: str = ""
    scatter: int = 0
    gone_to_ground: bool = False


@dataclass(frozen=True, slots=True)
class VehicleDamage:
    """The vehicle part of :class:`UnitShot`: what the damage left on it."""

    hp_lost: int
    damage_bonus: int
    weapons_damaged: bool
    reduced_mobility: bool
    immobilised: bool
    shaken: bool
    stunned: bool
    destroyed: bool
    results: tuple[str, ...]
    out_of_control: bool = False  # a "Crash" or "Crash violent" result [L1446], [L1452]


@dataclass(frozen=True, slots=True)
class UnitMoved(Event):
    kind: ClassVar[str] = "unit_moved"
    unit: str
    speed: Speed
    inches: int
    roll: Roll
    models_left: int
    wounds_taken: int
    immobilised: bool = False
    vehicle: VehicleDamage | None = None  # a vehicle's dangerous terrain damage [L729]


@dataclass(frozen=True, slots=True)
class WentToGround(Event):
    kind: ClassVar[str] = "went_to_ground"
    unit: str


@dataclass(frozen=True, slots=True)
class SquadOutcome:
    """One squad after a combat of several squads."""

    unit: str
    models_left: int
    wounds_taken: int
    vehicle: VehicleDamage | None = None


@dataclass(frozen=True, slots=True)
class UnitShot(Event):
    kind: ClassVar[str] = "unit_shot"
    unit: str
    target: str
    weapon: str
    roll: Roll
    models_left: int
    wounds_taken: int
    pinning: bool = False
    vehicle: VehicleDamage | None = None
    poisoned: bool = False  # the worn model lost a W to a poisoned weapon [L665]
    friendly: SquadOutcome | None = None  # shooting into a melee: the 1s hit friends [L1132]
    # shooting from a transport: how many of the squad's models fired through its fire
    # points [L295] (0: the squad was not embarked; every older log)
    fire_points: int = 0
    alert: bool = False  # alert fire in the enemy's movement phase [L959]


@dataclass(frozen=True, slots=True)
class ActivationEnded(Event):
    kind: ClassVar[str] = "activation_ended"
    unit: str


@dataclass(frozen=True, slots=True)
class ChargeDeclared(Event):
    kind: ClassVar[str] = "charge_declared"
    unit: str
    target: str
    distance: int


@dataclass(frozen=True, slots=True)
class CombatFought(Event):
    """One combat: losses on each side (sweeping advance included), the winner, who retreats
    and whether the combat stays locked [L1242-L1258]."""

    kind: ClassVar[str] = "combat_fought"
    unit: str
    target: str
    roll: Roll
    unit_models_left: int
    target_models_left: int
    winner: str  # "unit", "target" or "draw"
    retreating: str = ""
    locked: bool = True
    swept: int = 0


@dataclass(frozen=True, slots=True)
class CombatResolved(Event):
    """A combat of several squads (or with a vehicle) fought at once [L1205-L1213]: every
    squad's state after it, the winning seat ("" for a draw), the squads that retreat and the
    casualties of the sweeping advances (already in ``squads``)."""

    kind: ClassVar[str] = "combat_resolved"
    unit: str
    target: str
    roll: Roll
    squads: tuple[SquadOutcome, ...]
    winner: str
    retreating: tuple[str, ...] = ()
    swept: int = 0
    # the squads that left by Hit & Run between two Initiative steps [L416] (none in older
    # logs): unlocked, no morale test, no sweep
    disengaged: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Rammed(Event):
    """A ram: the rammer's move, the squads that dodged, and every squad's state after the
    hits (the rammer's too, when a vehicle or a monstrous creature hit it back)."""

    kind: ClassVar[str] = "rammed"
    unit: str
    speed: Speed
    inches: int
    roll: Roll
    squads: tuple[SquadOutcome, ...] = ()
    dodged: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class RoundStarted(Event):
    """Alternation mode: a new game round; ``first`` won the round's roll-off (round 1: the
    player chosen at the set-up) [L840]. Every squad is to play again."""

    kind: ClassVar[str] = "round_started"
    round: int
    first: str
    roll: Roll


@dataclass(frozen=True, slots=True)
class SquadChosen(Event):
    """Alternation mode: the squad the active player plays now, all its phases [L842]."""

    kind: ClassVar[str] = "squad_chosen"
    unit: str


@dataclass(frozen=True, slots=True)
class ActivationPassed(Event):
    """Alternation mode: ``unit`` has been played (its marker placed); ``turn`` says who
    plays the next squad (0: the round's first player) [L842-L844]."""

    kind: ClassVar[str] = "activation_passed"
    unit: str
    turn: int


@dataclass(frozen=True, slots=True)
class Regenerated(Event):
    kind: ClassVar[str] = "regenerated"
    unit: str
    roll: Roll
    healed: bool


@dataclass(frozen=True, slots=True)
class PoisonTested(Event):
    """The T test of a poisoned model; a failure is a wound with no save [L665]."""

    kind: ClassVar[str] = "poison_tested"
    unit: str
    roll: Roll
    passed: bool
    models_left: int
    wounds_taken: int


@dataclass(frozen=True, slots=True)
class AccidentTested(Event):
    """The accident test of a wounded model of a monstrous creature, flying, jet-pack, bike
    or jetbike squad at the end of an enemy squad's shooting: a dangerous terrain test, the
    lower of 2D6 when it lost 1 W [L1154-L1160]."""

    kind: ClassVar[str] = "accident_tested"
    unit: str
    roll: Roll
    passed: bool
    models_left: int
    wounds_taken: int


@dataclass(frozen=True, slots=True)
class OutOfControlEnded(Event):
    """The end of an out-of-control vehicle's movement phase: it is immobilised [L1446]."""

    kind: ClassVar[str] = "out_of_control_ended"
    unit: str


@dataclass(frozen=True, slots=True)
class Embarked(Event):
    kind: ClassVar[str] = "embarked"
    unit: str
    transport: str


@dataclass(frozen=True, slots=True)
class Disembarked(Event):
    """``moved``: the squad counts as having made a normal move (after its transport's move,
    or forced out); ``emergency``: it goes to ground [L282], [L299]; ``rapid``: out of a fast
    transport that moved more than 12 ps, it counts as having made a rapid move [L309]."""

    kind: ClassVar[str] = "disembarked"
    unit: str
    transport: str
    moved: bool
    emergency: bool = False
    rapid: bool = False


@dataclass(frozen=True, slots=True)
class PassengersHit(Event):
    """The passengers of a destroyed (S5) or exploded (S6, then a pinning test) transport
    take one hit each, then get out [L273], [L1453-L1454]."""

    kind: ClassVar[str] = "passengers_hit"
    unit: str
    transport: str
    roll: Roll
    models_left: int
    wounds_taken: int


@dataclass(frozen=True, slots=True)
class Retreated(Event):
    """A squad chose to retreat from a combat it did not lose or lost with its morale test
    passed [L1244], [L1254]: ``caught`` by a sweeping advance, it lost the casualty difference
    (``models_left``, ``wounds_taken``); ``locked``: a fearless squad caught stays in the
    combat [L935]."""

    kind: ClassVar[str] = "retreated"
    unit: str
    roll: Roll
    caught: bool
    models_left: int
    wounds_taken: int
    locked: bool = False


@dataclass(frozen=True, slots=True)
class Disengaged(Event):
    """A squad left its combat by Désengagement or Hit & Run with a normal move: unlocked, no
    sweeping advance against it [L392-L394], [L416]."""

    kind: ClassVar[str] = "disengaged"
    unit: str
    inches: int


@dataclass(frozen=True, slots=True)
class AlertDeclared(Event):
    """The squad does nothing this turn and goes on alert [L959]."""

    kind: ClassVar[str] = "alert_declared"
    unit: str


@dataclass(frozen=True, slots=True)
class AlertEnded(Event):
    """The alert squad's shooting phase is over (its targets took their tests) [L959]."""

    kind: ClassVar[str] = "alert_ended"
    unit: str


@dataclass(frozen=True, slots=True)
class ChallengeIssued(Event):
    kind: ClassVar[str] = "challenge_issued"
    unit: str
    target: str


@dataclass(frozen=True, slots=True)
class ChallengeAnswered(Event):
    """``accepted``: ``unit`` and ``challenger`` fight each other only; refused, ``unit``
    strikes at I1 until the end of the turn [L1226-L1228]."""

    kind: ClassVar[str] = "challenge_answered"
    unit: str
    challenger: str
    accepted: bool


@dataclass(frozen=True, slots=True)
class HitAndRunDeclared(Event):
    kind: ClassVar[str] = "hit_and_run_declared"
    unit: str
    initiative: int = 0


@dataclass(frozen=True, slots=True)
class Stopped(Event):
    """Alert fire would have made the squad retreat or go out of control: it cannot shoot
    nor charge until the end of the turn instead [L966]."""

    kind: ClassVar[str] = "stopped"
    unit: str


@dataclass(frozen=True, slots=True)
class Consolidated(Event):
    kind: ClassVar[str] = "consolidated"
    unit: str
    inches: int


@dataclass(frozen=True, slots=True)
class GameLengthRolled(Event):
    kind: ClassVar[str] = "game_length_rolled"
    round: int
    roll: Roll
    continues: bool


@dataclass(frozen=True, slots=True)
class ControlReported(Event):
    kind: ClassVar[str] = "control_reported"
    objective: str
    seat: str


@dataclass(frozen=True, slots=True)
class ResultConfirmed(Event):
    kind: ClassVar[str] = "result_confirmed"
    seat: str


@dataclass(frozen=True, slots=True)
class BattleEnded(Event):
    kind: ClassVar[str] = "battle_ended"
    undoable: ClassVar[bool] = False
    vp_a: int
    vp_b: int
    winner: str  # "A", "B" or "" for a draw


EVENT_CODEC = TaggedCodec(
    "event",
    [
        Undone,  # the shared undo bookkeeping: without them a log with an undo cannot be
        UndoRequested,  # exported nor stored
        UndoRefused,
        BattleCreated,
        ReserveDeclared,
        StepEnded,
        RollOffMade,
        FirstChosen,
        UnitDeployed,
        ScoutMoved,
        TurnStarted,
        DawnRolled,
        ReservesRolled,
        TestTaken,
        PhaseStarted,
        UnitArrived,
        UnitMoved,
        WentToGround,
        UnitShot,
        ActivationEnded,
        ChargeDeclared,
        CombatFought,
        Consolidated,
        GameLengthRolled,
        ControlReported,
        BattleEnded,
        CombatResolved,
        Regenerated,
        PoisonTested,
        Embarked,
        Disembarked,
        PassengersHit,
        Rammed,
        RoundStarted,
        SquadChosen,
        ActivationPassed,
        AccidentTested,
        OutOfControlEnded,
        Retreated,
        ResultConfirmed,
        Disengaged,
        AlertDeclared,
        AlertEnded,
        Stopped,
        ChallengeIssued,
        ChallengeAnswered,
        HitAndRunDeclared,
    ],
)
