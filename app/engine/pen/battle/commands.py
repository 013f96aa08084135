"""The commands a PEN battle accepts (``{"type": kind, ...}`` in the API).

Distances and lines of sight are measured on the table: the player states them (``inches``,
``range_inches``, ``half_range``, ``cover_save``, ``facing``...) and the engine checks them
against the limits the rules give, never against a model of the table.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from app.engine.match.codec import Tagged, TaggedCodec
from app.engine.pen.battle.setup import BattleSetup
from app.engine.pen.battle.state import ReserveMode, Speed

__all__ = [
    "COMMAND_CODEC",
    "AnswerChallenge",
    "ApproveUndo",
    "Arrive",
    "Challenge",
    "Charge",
    "ChooseFirst",
    "Command",
    "ConfirmResult",
    "Consolidate",
    "CreateBattle",
    "DeclareReserve",
    "Deploy",
    "Disembark",
    "Disengage",
    "Embark",
    "EndActivation",
    "EndPhase",
    "EndStep",
    "Fight",
    "GoOnAlert",
    "GoToGround",
    "HitAndRun",
    "Move",
    "Pairing",
    "Ram",
    "RamTarget",
    "RefuseUndo",
    "ReportControl",
    "Retreat",
    "RollOff",
    "ScoutMove",
    "Shoot",
    "StartTurn",
    "Undo",
    "WeaponGroup",
]


class Command(Tagged):
    __slots__ = ()


@dataclass(frozen=True, slots=True)
class CreateBattle(Command):
    kind: ClassVar[str] = "create_battle"
    setup: BattleSetup


@dataclass(frozen=True, slots=True)
class DeclareReserve(Command):
    kind: ClassVar[str] = "declare_reserve"
    unit: str
    mode: ReserveMode = ReserveMode.STANDARD


@dataclass(frozen=True, slots=True)
class EndStep(Command):
    """This seat is done with the current set-up step (reserves, deployment, scouts)."""

    kind: ClassVar[str] = "end_step"


@dataclass(frozen=True, slots=True)
class RollOff(Command):
    kind: ClassVar[str] = "roll_off"


@dataclass(frozen=True, slots=True)
class ChooseFirst(Command):
    kind: ClassVar[str] = "choose_first"
    seat: str


@dataclass(frozen=True, slots=True)
class Deploy(Command):
    kind: ClassVar[str] = "deploy"
    unit: str


@dataclass(frozen=True, slots=True)
class ScoutMove(Command):
    kind: ClassVar[str] = "scout_move"
    unit: str
    inches: int


@dataclass(frozen=True, slots=True)
class StartTurn(Command):
    """Start of turn: dawn roll, reserve rolls (``reserves``: the squads to roll for, all when
    absent), regroup tests [L944-L978]."""

    kind: ClassVar[str] = "start_turn"
    reserves: tuple[str, ...] | None = None


@dataclass(frozen=True, slots=True)
class Arrive(Command):
    """An available reserve comes on: from the table edge, by outflank (``edge`` announced)
    or by deep strike (``speed`` announced before the scatter; ``blocked``: the scatter had
    to be shortened, so the squad goes to ground [L890])."""

    kind: ClassVar[str] = "arrive"
    unit: str
    speed: Speed = Speed.NORMAL
    inches: int = 0
    edge: str = ""
    blocked: bool = False


@dataclass(frozen=True, slots=True)
class Move(Command):
    """A squad's move (it starts its activation). ``dangerous``: the squad crossed terrain
    that tests (dangerous terrain, or difficult terrain at a rapid move for bikes and
    vehicles [L159], [L198]): one D6 per model, a 1 wounds (vehicle: immobilised)."""

    kind: ClassVar[str] = "move"
    unit: str
    speed: Speed
    inches: int = 0
    difficult: bool = False
    dangerous: bool = False
    difficult_inches: int = 0  # inches moved inside difficult terrain [L723]
    very_difficult: bool = False  # ... very difficult terrain: -2 ps a segment [L724]


@dataclass(frozen=True, slots=True)
class RamTarget:
    """A squad on a ram's path; ``facing``: the facing of a rammed vehicle in contact."""

    unit: str
    facing: str = "front"


@dataclass(frozen=True, slots=True)
class Ram(Command):
    """Charge bélier [L1010-L1030]: a vehicle, monstrous creature, bike or jetbike moves in
    a straight line (``inches``) through ``targets``, in the order met; the squads that stepped
    out of the path are left out by the player. It then cannot shoot or charge this turn."""

    kind: ClassVar[str] = "ram"
    unit: str
    inches: int
    targets: tuple[RamTarget, ...] = ()


@dataclass(frozen=True, slots=True)
class GoOnAlert(Command):
    """État d'alerte [L957-L969]: the squad does nothing this turn (it may pivot, on the
    table) and gets a shooting phase in the next enemy movement phase: its owner then sends
    ``shoot`` with it while the enemy moves, and ``end_activation`` when it is done."""

    kind: ClassVar[str] = "go_on_alert"
    unit: str


@dataclass(frozen=True, slots=True)
class GoToGround(Command):
    """The target's player: the squad goes to ground just before the to-hit rolls [L1136]."""

    kind: ClassVar[str] = "go_to_ground"
    unit: str


@dataclass(frozen=True, slots=True)
class Shoot(Command):
    kind: ClassVar[str] = "shoot"
    unit: str
    target: str
    weapon: str
    range_inches: int
    half_range: bool = False
    models: int | None = None  # how many models fire (all when absent)
    cover_save: int | None = None  # the target's cover as seen on the table
    facing: str = "front"  # the facing a vehicle target is hit on
    template_hits: int | None = None
    friend: str = ""  # shooting into a melee: the friendly squad the 1s hit [L1132]


@dataclass(frozen=True, slots=True)
class EndActivation(Command):
    """The squad is done moving and shooting: its targets take their tests [L1162], [L685]."""

    kind: ClassVar[str] = "end_activation"
    unit: str


@dataclass(frozen=True, slots=True)
class Charge(Command):
    kind: ClassVar[str] = "charge"
    unit: str
    target: str
    distance: int


@dataclass(frozen=True, slots=True)
class Embark(Command):
    """A squad boards a friendly transport: at deployment, or at the start or the end of its
    movement (it is then done for the turn) [L277-L278], [L290-L297]."""

    kind: ClassVar[str] = "embark"
    unit: str
    transport: str


@dataclass(frozen=True, slots=True)
class Disembark(Command):
    """A squad gets out of its transport in its movement phase: before the transport moves
    (the squad then moves itself; the transport cannot make a rapid move [L279]) or after
    it (the squad counts as having made a normal move, it may shoot and charge [L282]).
    ``emergency``: the whole hull is the access point, the squad goes to ground [L299]."""

    kind: ClassVar[str] = "disembark"
    unit: str
    emergency: bool = False


@dataclass(frozen=True, slots=True)
class HitAndRun(Command):
    """Hit & Run [L416]: before its combat is fought this phase, the owner of a squad with
    the rule says it will try to leave at the end of an Initiative step (``initiative``; 0:
    the step it strikes in). Then 1D6 + its majority I against 1D6 + the best I of the enemy
    squads locked with it: above theirs, it leaves there; otherwise it fights on and may
    disengage at the end of the phase."""

    kind: ClassVar[str] = "hit_and_run"
    unit: str
    initiative: int = 0


@dataclass(frozen=True, slots=True)
class Challenge(Command):
    """Duel [L1223-L1228]: a character that charged this turn (an independent character,
    its own squad here) challenges an enemy character locked in the same combat, before the
    combat is fought; the challenged player answers."""

    kind: ClassVar[str] = "challenge"
    unit: str
    target: str


@dataclass(frozen=True, slots=True)
class AnswerChallenge(Command):
    """The challenged character's player: ``accept`` and the two fight each other only;
    refused, the challenged character strikes at I1 until the end of the turn [L1226-L1228]."""

    kind: ClassVar[str] = "answer_challenge"
    unit: str
    accept: bool


@dataclass(frozen=True, slots=True)
class Pairing:
    """In a combat of several squads: which enemy squad ``unit`` attacks [L1205-L1211]."""

    unit: str
    target: str


@dataclass(frozen=True, slots=True)
class WeaponGroup:
    """In squad ``unit``, ``models`` models fight with its close-combat weapon ``weapon`` (a
    named melee weapon of the squad): each model strikes with its own weapon, batch by batch
    [L1274-L1282], at that weapon's Initiative (a power fist at I1 [L609]). The squad's
    other models fight with its ``melee`` weapon."""

    unit: str
    weapon: str
    models: int = 1


@dataclass(frozen=True, slots=True)
class Fight(Command):
    """Resolve the combat ``unit`` is in with ``target``: Initiative order, combat result,
    morale with its malus, sweeping advance [L1230-L1258].

    When more than two squads are locked together, or a vehicle is in it, the whole combat
    is fought at once [L1205-L1213]: ``assign`` says which enemy each squad attacks (the
    first enemy it is locked with by default), ``in_cover`` the charged squads that were in
    cover, ``facing`` the armour facing a vehicle is hit on (as seen on the table [L213]).
    ``weapons``: the models of a squad that fight with another of its close-combat weapons
    (a sergeant's power fist beside the squad's knives); the combat is then fought at once
    too."""

    kind: ClassVar[str] = "fight"
    unit: str
    target: str
    target_in_cover: bool = False
    offensive_grenades: bool = False
    assign: tuple[Pairing, ...] = ()
    in_cover: tuple[str, ...] = ()
    facing: str = "front"
    weapons: tuple[WeaponGroup, ...] = ()


@dataclass(frozen=True, slots=True)
class Retreat(Command):
    """The owner of a squad that did not lose its combat this phase, or lost it and passed
    its morale test, breaks off all the same: it retreats, and the enemy squads in that
    combat with no other enemy may try a sweeping advance [L1244], [L1254], [L1256-L1258]."""

    kind: ClassVar[str] = "retreat"
    unit: str


@dataclass(frozen=True, slots=True)
class Disengage(Command):
    """Désengagement [L392-L394] (and Hit & Run [L416], which may always do so at the end of
    the assault phase): a squad still locked after its combat this phase leaves it with a
    normal move (``inches``); the enemies left cannot sweep it but may consolidate."""

    kind: ClassVar[str] = "disengage"
    unit: str
    inches: int


@dataclass(frozen=True, slots=True)
class Consolidate(Command):
    kind: ClassVar[str] = "consolidate"
    unit: str
    inches: int


@dataclass(frozen=True, slots=True)
class EndPhase(Command):
    kind: ClassVar[str] = "end_phase"


@dataclass(frozen=True, slots=True)
class ReportControl(Command):
    """At the end of the game: who controls an objective or zone (measured on the table,
    [L809-L816]); ``seat`` empty for nobody."""

    kind: ClassVar[str] = "report_control"
    objective: str
    seat: str = ""


@dataclass(frozen=True, slots=True)
class ConfirmResult(Command):
    """At the end of a game whose set-up asks for it: this seat agrees with the objectives
    reported; the battle ends when both have (pen rulings B18)."""

    kind: ClassVar[str] = "confirm_result"


@dataclass(frozen=True, slots=True)
class Undo(Command):
    kind: ClassVar[str] = "undo"


@dataclass(frozen=True, slots=True)
class ApproveUndo(Command):
    kind: ClassVar[str] = "approve_undo"
    batch: int


@dataclass(frozen=True, slots=True)
class RefuseUndo(Command):
    kind: ClassVar[str] = "refuse_undo"
    batch: int


COMMAND_CODEC = TaggedCodec(
    "command",
    [
        DeclareReserve,
        EndStep,
        RollOff,
        ChooseFirst,
        Deploy,
        Embark,
        Disembark,
        ScoutMove,
        StartTurn,
        Arrive,
        Move,
        Ram,
        GoToGround,
        Shoot,
        EndActivation,
        Charge,
        Fight,
        Consolidate,
        EndPhase,
        ReportControl,
        Retreat,
        ConfirmResult,
        Disengage,
        GoOnAlert,
        Challenge,
        AnswerChallenge,
        HitAndRun,
        Undo,
        ApproveUndo,
        RefuseUndo,
    ],
)
