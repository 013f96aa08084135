"""The events of a Black Reach battle. Each carries what ``evolve`` needs, dice included
(``roll``, with its seed), and the results as the values they leave (face, Hit Points,
markers), so replay never re-computes a roll."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import ClassVar

from app.engine.black_reach.battle.commands import BurstShare, Step, WeaponShot
from app.engine.black_reach.battle.setup import BattleSetup
from app.engine.black_reach.battle.state import RerollAnswer, SecretOrder
from app.engine.black_reach.turn import Token
from app.engine.match.codec import RawJson, TaggedCodec
from app.engine.match.dice import Roll
from app.engine.match.events import UNDO_EVENTS, Event

__all__ = [
    "EVENT_CODEC",
    "ActivationEnded",
    "ArmourSaved",
    "AssaultResolved",
    "BattleCreated",
    "BattleEnded",
    "BeamFired",
    "BurstDeclared",
    "CardBonusUsed",
    "CardPlayed",
    "CardsDrawn",
    "DamageLocated",
    "Demolished",
    "DeploymentEnded",
    "DestructionDealt",
    "EquipmentReadied",
    "EquipmentUsed",
    "FlamerFired",
    "ForcedMove",
    "GrenadeThrown",
    "HandDrawn",
    "InitiativeKept",
    "JumpLanded",
    "MoveDeclared",
    "OrderRevealed",
    "OrdersCommitted",
    "OrdersPlaced",
    "OverwatchAnswered",
    "PowerAgainDeclined",
    "PowerAgainOffered",
    "PowerLost",
    "PowerManifested",
    "PowersMaintained",
    "RepairReadied",
    "RepairUsed",
    "RerollAnswered",
    "RerollOffered",
    "ReserveEnded",
    "ResultConfirmed",
    "ScoutMoved",
    "ScoutingEnded",
    "ScoutingStarted",
    "SquareAwaited",
    "StepsTaken",
    "SuppressedPlaced",
    "SuppressedRemoved",
    "TemplatePlaced",
    "TurnEnded",
    "TurnStarted",
    "UnitDeployed",
    "UnitDeployedAboard",
    "UnitEmbarked",
    "UnitFlipped",
    "UnitMoved",
    "UnitShot",
    "UnitSniped",
    "UnitSpotted",
    "UnitsActivated",
    "UnitsJumped",
]


@dataclass(frozen=True, slots=True)
class BattleCreated(Event):
    kind: ClassVar[str] = "battle_created"
    undoable: ClassVar[bool] = False
    setup: BattleSetup


@dataclass(frozen=True, slots=True)
class UnitDeployed(Event):
    kind: ClassVar[str] = "unit_deployed"
    unit: str
    to: Step
    face: str


@dataclass(frozen=True, slots=True)
class UnitDeployedAboard(Event):
    """A counter deployed aboard a transport of its side: it starts embarked (rulings 141)."""

    kind: ClassVar[str] = "unit_deployed_aboard"
    unit: str
    transport: str
    face: str


@dataclass(frozen=True, slots=True)
class DeploymentEnded(Event):
    kind: ClassVar[str] = "deployment_ended"
    side: str


@dataclass(frozen=True, slots=True)
class TurnStarted(Event):
    """The Order phase of ``turn``: the Initiative side and the tokens each side takes."""

    kind: ClassVar[str] = "turn_started"
    undoable: ClassVar[bool] = False
    turn: int
    initiative: str
    other: str
    pools: Mapping[str, tuple[Token, ...]]


@dataclass(frozen=True, slots=True)
class OrdersPlaced(Event):
    """The side's face-down tokens (only its own seat sees this event)."""

    kind: ClassVar[str] = "orders_placed"
    side: str
    orders: tuple[SecretOrder, ...]


@dataclass(frozen=True, slots=True)
class OrdersCommitted(Event):
    """What everybody sees: which units carry a face-down token, and its SHA-256 commitment."""

    kind: ClassVar[str] = "orders_committed"
    side: str
    commitments: Mapping[str, str]


@dataclass(frozen=True, slots=True)
class OrderRevealed(Event):
    kind: ClassVar[str] = "order_revealed"
    side: str
    unit: str
    token: Token
    nonce: str


@dataclass(frozen=True, slots=True)
class UnitMoved(Event):
    kind: ClassVar[str] = "unit_moved"
    unit: str
    path: tuple[Step, ...]
    cost: int
    reserve: bool = False


@dataclass(frozen=True, slots=True)
class UnitEmbarked(Event):
    """The infantry gets into ``transport`` (it leaves the battlefield's squares)."""

    kind: ClassVar[str] = "unit_embarked"
    unit: str
    transport: str


@dataclass(frozen=True, slots=True)
class UnitFlipped(Event):
    """Changement d'état: the counter now shows ``face``."""

    kind: ClassVar[str] = "unit_flipped"
    unit: str
    face: str


@dataclass(frozen=True, slots=True)
class UnitSpotted(Event):
    """An ambushed unit turned to ``face`` (its Inactive face), a Forced and Null Move
    [L1782-L1824]: ``why`` is ``"spotted"`` (by the unit ``by``, ``after`` that many squares
    of its own move when it was moving), ``"auspex"`` (by ``by``), ``"assault"`` (engaged in
    an assault) or ``"shoots"`` (it flips to make a Shooting Action)."""

    kind: ClassVar[str] = "unit_spotted"
    unit: str
    face: str
    why: str
    by: str = ""
    after: int | None = None


@dataclass(frozen=True, slots=True)
class UnitShot(Event):
    """A Shooting Action: the numbers of the §3.7 pipeline and its outcome."""

    kind: ClassVar[str] = "unit_shot"
    unit: str
    target: str
    suppression: bool
    roll: Roll
    cv: int
    modified_cv: int
    penalties: int
    long_range: bool
    sight: str
    dv: int
    final: int
    outcome: str  # miss / step / coup_double, or suppressed_<n>
    moving_penalty: int = 0  # Tir en Mouvement
    weapon: str | None = None  # a heavy vehicle's weapon (main_1, secondary_1...)
    bonuses: int = 0  # rear attack on a heavy vehicle +2 [L651-L656]
    side: str = ""  # a heavy vehicle target: hit through its "front", "rear" or a "side"


@dataclass(frozen=True, slots=True)
class ScoutingStarted(Event):
    """Both sides deployed and some unit has Scout: the sides make their Scout moves in this
    order (the Initiative side first) before the first turn."""

    kind: ClassVar[str] = "scouting_started"
    order: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class ScoutMoved(Event):
    kind: ClassVar[str] = "scout_moved"
    unit: str
    path: tuple[Step, ...]
    cost: int


@dataclass(frozen=True, slots=True)
class ScoutingEnded(Event):
    kind: ClassVar[str] = "scouting_ended"
    side: str


@dataclass(frozen=True, slots=True)
class MoveDeclared(Event):
    """A Movement Action declared with its path, which an enemy unit with En Alerte may shoot
    along: the move waits for the ``reactor`` side's answer (``OverwatchAnswered``)."""

    kind: ClassVar[str] = "move_declared"
    unit: str
    side: str
    reactor: str
    path: tuple[Step, ...]
    fire_at: str | None = None
    fire_after: int | None = None
    flip: str | None = None
    embark: str | None = None
    demolish: str | None = None
    flame: str | None = None  # a flamer fired during the move instead of fire_at
    assault: str | None = None  # an assault's move: its target, resolved after it (rulings 122)
    fire_second: str | None = None  # Double Tir on the move (rulings 123)
    burst: tuple[BurstShare, ...] = ()  # Rafale on the move (rulings 123)
    weapons: tuple[WeaponShot, ...] = ()  # a vehicle's weapons on the move (rulings 140)
    supporters: tuple[str, ...] = ()  # ... and its declared supporters


@dataclass(frozen=True, slots=True)
class OverwatchAnswered(Event):
    """The reactor's answer to a declared move: ``unit`` shoots it (En Alerte) after
    ``after`` steps and takes an Activated marker, or nobody does (``unit`` empty); the move
    is then made."""

    kind: ClassVar[str] = "overwatch_answered"
    side: str
    unit: str = ""
    after: int = 0


@dataclass(frozen=True, slots=True)
class UnitSniped(Event):
    """A sniper's shot: the die less 2 per Suppressed marker on the sniper and the obstacle
    penalties, read on the sniper table [L1324-L1344]."""

    kind: ClassVar[str] = "unit_sniped"
    unit: str
    target: str
    roll: Roll
    penalties: int
    sight: str
    result: int
    effect: str  # nothing / suppressed / step / step_and_suppressed


@dataclass(frozen=True, slots=True)
class BurstDeclared(Event):
    """A Rafale announced before its first shot [L1304-L1306]: the modified CV and the share
    each target gets (its shots follow, one ``UnitShot`` each, the share as their CV)."""

    kind: ClassVar[str] = "burst_declared"
    unit: str
    modified_cv: int
    shares: tuple[BurstShare, ...]
    weapon: str | None = None  # a heavy vehicle's weapon with Rafale


@dataclass(frozen=True, slots=True)
class AssaultResolved(Event):
    kind: ClassVar[str] = "assault_resolved"
    unit: str
    target: str
    supporters: tuple[str, ...]
    start: Step
    roll: Roll  # the attacker's dice first, then the defender's
    attacker_dice: int
    attacker_total: int
    defender_total: int
    outcome: str


@dataclass(frozen=True, slots=True)
class StepsTaken(Event):
    """A counter took step losses: what it shows afterwards."""

    kind: ClassVar[str] = "steps_taken"
    unit: str
    steps: int
    hit_points_used: int
    face: str
    hit_points: int
    flipped: bool
    destroyed: bool


@dataclass(frozen=True, slots=True)
class DamageLocated(Event):
    """A heavy vehicle's step: the attacker's location roll (1 die + ``modifier``, clamped to
    1..6) read on the vehicle's Damage set, and the marker placed [L658-L699]."""

    kind: ClassVar[str] = "damage_located"
    unit: str
    damage_set: str
    roll: Roll
    modifier: int
    result: int
    marker: str
    number: int = 1


@dataclass(frozen=True, slots=True)
class PowerManifested(Event):
    """A psychic power manifested: its Perils of the Warp test (1 die + level - 2 per
    Suppressed marker, the cost included [L2817-L2819]), what the test gave (``works``,
    ``step``, ``explodes``, or a Librarian's ``draw_marker`` and the marker drawn) and whether
    the power applies."""

    kind: ClassVar[str] = "power_manifested"
    unit: str
    power: str
    effect: str
    target: str | None
    roll: Roll  # the Perils die, then the marker drawn (a die as large as the pool)
    level: int
    suppressed: int
    result: int
    perils: str
    marker: str | None
    marker_value: int
    applies: bool
    weapon: str | None = None  # Objuration Mechanicum on one weapon of a vehicle


@dataclass(frozen=True, slots=True)
class SuppressedRemoved(Event):
    kind: ClassVar[str] = "suppressed_removed"
    unit: str
    count: int


@dataclass(frozen=True, slots=True)
class PowerLost(Event):
    """A Perils marker discarded the power for the rest of the game [L2828-L2831]."""

    kind: ClassVar[str] = "power_lost"
    unit: str
    power: str


@dataclass(frozen=True, slots=True)
class InitiativeKept(Event):
    """Scrier's Gaze: the side keeps the Initiative next turn [L3017-L3023]."""

    kind: ClassVar[str] = "initiative_kept"
    side: str


@dataclass(frozen=True, slots=True)
class TemplatePlaced(Event):
    """A template fired (Tir Direct or Indirect): where it was aimed, its dispersion roll (none
    for a direct shot or a template without a diagram), where it landed, the squares it covers
    and the units under it, attacked one by one in this order [L1381-L1477]."""

    kind: ClassVar[str] = "template_placed"
    unit: str
    template: str
    indirect: bool
    aimed: Step
    roll: Roll
    landed: Step
    squares: tuple[Step, ...]
    targets: tuple[str, ...]
    penalties: int  # obstacles on the line to the intercase (Tir Direct only)
    sight: str


@dataclass(frozen=True, slots=True)
class DestructionDealt(Event):
    """Destruction points dealt to a wreck (a heavy vehicle driving into it [L368-L376]): its
    total, and whether it reached the wreck's structure value and is removed [L1186-L1194]."""

    kind: ClassVar[str] = "destruction_dealt"
    wreck: str  # a wreck's unit, or a board structure's element id
    points: int
    total: int
    removed: bool
    by: str = ""
    roll: Roll | None = None  # the Destruction / Démolisseur dice (none when crushed)


@dataclass(frozen=True, slots=True)
class ArmourSaved(Event):
    """An armour save against the steps of a shot or an assault: 1 die - 2 per Suppressed
    marker, at least ``value`` ignores them [L1869-L1888]."""

    kind: ClassVar[str] = "armour_save"
    unit: str
    roll: Roll
    value: int
    result: int
    saved: bool


@dataclass(frozen=True, slots=True)
class SuppressedPlaced(Event):
    kind: ClassVar[str] = "suppressed_placed"
    unit: str
    count: int


@dataclass(frozen=True, slots=True)
class UnitsActivated(Event):
    """Activated markers (assault supporters): the units cannot act this turn."""

    kind: ClassVar[str] = "units_activated"
    units: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class ForcedMove(Event):
    """A Forced Move (not a Movement Action): retreats, returns, taking the square."""

    kind: ClassVar[str] = "forced_move"
    unit: str
    to: Step
    why: str


@dataclass(frozen=True, slots=True)
class SquareAwaited(Event):
    """A unit forced to move (``why``: a retreat, pushed aside by a vehicle) whose owner
    ``side`` chooses its square among ``squares`` (the first: the battle's default); then
    ``attacker`` takes ``entry`` (rulings 142)."""

    kind: ClassVar[str] = "square_awaited"
    unit: str
    side: str
    why: str
    squares: tuple[Step, ...]
    attacker: str
    entry: Step
    attacker_why: str


@dataclass(frozen=True, slots=True)
class ActivationEnded(Event):
    kind: ClassVar[str] = "activation_ended"


@dataclass(frozen=True, slots=True)
class ReserveEnded(Event):
    kind: ClassVar[str] = "reserve_ended"
    side: str


@dataclass(frozen=True, slots=True)
class TurnEnded(Event):
    """End of the Reserve phase: one Suppressed marker off each unit that had one, the VP of
    the end-of-turn check, and who holds the Initiative next."""

    kind: ClassVar[str] = "turn_ended"
    undoable: ClassVar[bool] = False
    turn: int
    unsuppressed: tuple[str, ...]
    vp: Mapping[str, int]
    initiative: str


@dataclass(frozen=True, slots=True)
class BattleEnded(Event):
    kind: ClassVar[str] = "battle_ended"
    undoable: ClassVar[bool] = False
    winner: str | None
    reason: str
    vp: Mapping[str, int]


@dataclass(frozen=True, slots=True)
class ResultConfirmed(Event):
    kind: ClassVar[str] = "result_confirmed"
    undoable: ClassVar[bool] = False
    seat: str


@dataclass(frozen=True, slots=True)
class CardsDrawn(Event):
    """The side's discards and the cards it drew (only its own seat sees this event); the
    dice pick each card among those left in the deck."""

    kind: ClassVar[str] = "cards_drawn"
    side: str
    discarded: tuple[str, ...]
    drawn: tuple[str, ...]
    roll: Roll


@dataclass(frozen=True, slots=True)
class HandDrawn(Event):
    """What everybody sees of a draw: how many cards were discarded and drawn, and how many
    the side now holds and has left in its deck."""

    kind: ClassVar[str] = "hand_drawn"
    side: str
    discarded: int
    drawn: int
    hand: int
    deck: int


@dataclass(frozen=True, slots=True)
class CardPlayed(Event):
    """An Action card played face up: its Battle Event (``use`` ``event``, the text shown
    for the players to apply) or its Alternative Bonus readied on ``unit``."""

    kind: ClassVar[str] = "card_played"
    side: str
    card: str
    name: str
    use: str
    unit: str | None
    bonus: str
    value: int
    text: str = ""


@dataclass(frozen=True, slots=True)
class CardBonusUsed(Event):
    """The Alternative Bonus readied on ``unit`` was used (its roll, its move or its armour
    save) and the card is discarded."""

    kind: ClassVar[str] = "card_bonus_used"
    unit: str
    card: str


@dataclass(frozen=True, slots=True)
class FlamerFired(Event):
    """A flamer's template laid from the shooter's square: the squares it covers, those the
    flame reaches and the units it attacks, one by one in this order (a ``UnitShot`` each,
    then its Suppressed marker) [L1214-L1258]."""

    kind: ClassVar[str] = "flamer_fired"
    unit: str
    template: str
    facing: str
    squares: tuple[Step, ...]
    reached: tuple[Step, ...]
    targets: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class GrenadeThrown(Event):
    """A Grenade or Tankbusta Bomb marker used (``group``'s ``option``, one marker for good):
    its template on the intercase, the squares it covers and the units under it, attacked one
    by one in this order [L2515-L2564]."""

    kind: ClassVar[str] = "grenade_thrown"
    unit: str
    group: str
    option: str
    template: str
    at: Step
    squares: tuple[Step, ...]
    targets: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class RepairReadied(Event):
    """A Mekaniak's change (``modifier``) or a Techmarine's choice (``pick``) announced for
    the next location roll of an allied heavy vehicle near him."""

    kind: ClassVar[str] = "repair_readied"
    unit: str
    modifier: int = 0
    pick: str = ""


@dataclass(frozen=True, slots=True)
class UnitsJumped(Event):
    """Da Jump: the Weirdboy and the unit he takes leave the battlefield in ``turn``; they
    come back in the next turn's Reserve phase (rulings 132)."""

    kind: ClassVar[str] = "units_jumped"
    unit: str
    units: tuple[str, ...]
    turn: int


@dataclass(frozen=True, slots=True)
class JumpLanded(Event):
    """A unit back from Da Jump enters by a board edge (``edges``: the edges its first square
    counts as), before its Movement Action (the ``unit_moved`` that follows)."""

    kind: ClassVar[str] = "jump_landed"
    unit: str
    edges: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class BeamFired(Event):
    """A Faisceau power (Killbolt) aimed at ``at``: the squares its line runs through and the
    units under it, friend or foe, attacked one by one after this (rulings 129)."""

    kind: ClassVar[str] = "beam_fired"
    unit: str
    power: str
    at: Step
    squares: tuple[Step, ...]
    targets: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class EquipmentReadied(Event):
    """Markers of an equipment option (held by ``group``) announced for ``unit``'s next
    action (rulings 127); public, as the markers on the table."""

    kind: ClassVar[str] = "equipment_readied"
    unit: str
    group: str
    option: str
    count: int
    bonus: str = ""  # a Boss Pole marker's bonus (dakka, boss, zag)


@dataclass(frozen=True, slots=True)
class EquipmentUsed(Event):
    """The markers readied on ``unit`` changed a roll: used for good [L2488-L2490]; or a
    Kombi Weapon's marker (``count`` 1) spent on the Alternative action that follows."""

    kind: ClassVar[str] = "equipment_used"
    unit: str
    group: str
    option: str
    count: int
    bonus: str = ""  # a Boss Pole marker's bonus (dakka, boss, zag)


@dataclass(frozen=True, slots=True)
class RepairUsed(Event):
    """A readied mechanic acts on ``vehicle``'s location roll (his Activated marker, and the
    Grot Oiler's, follow in ``UnitsActivated``)."""

    kind: ClassVar[str] = "repair_used"
    unit: str
    vehicle: str
    modifier: int = 0
    pick: str = ""
    oiler: str | None = None


@dataclass(frozen=True, slots=True)
class Demolished(Event):
    """A unit made its Destruction roll at a structure as its Shooting Action, or its
    Démolisseur roll after its Movement Action (the points follow in ``DestructionDealt``)."""

    kind: ClassVar[str] = "demolished"
    unit: str
    structure: str
    how: str  # "shot" or "demolisher"


@dataclass(frozen=True, slots=True)
class PowersMaintained(Event):
    """The side's persistent powers at the start of the Order phase: the markers kept (their
    psykers pay the cost again: ``SuppressedPlaced`` follows) and those discarded, their
    effects ended [L2760-L2772]. Markers are named ``psyker|power``."""

    kind: ClassVar[str] = "powers_maintained"
    side: str
    kept: tuple[str, ...]
    dropped: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class RerollOffered(Event):
    """A command stopped at a roll that ``side`` may reroll with a Purity Seal or a Grim
    marker (rulings 153-155): the command (JSON) and its seat, every die it drew so far, in
    order (``originals``: the first values of rerolled dice), the answers already given, the
    roll offered (``at``: its dice indices) and the event it makes if kept (JSON). ``roll``:
    the dice this batch drew, with their seed. Nothing of the command applies yet."""

    kind: ClassVar[str] = "reroll_offered"
    command: RawJson
    actor: str
    dice: tuple[int, ...]
    originals: tuple[tuple[int, int], ...]
    seeded: bool
    answers: tuple[RerollAnswer, ...]
    side: str
    at: tuple[int, ...]
    event: RawJson
    roll: Roll


@dataclass(frozen=True, slots=True)
class RerollAnswered(Event):
    """``side``'s answer to the roll offered: rerolled with a marker of ``group``'s
    ``option`` (its new dice in ``values``; the marker used for good), or kept (``option``
    empty). The command then goes on (its events follow in this batch), or stops at the next
    roll offered. ``roll``: the dice this answer drew, the new ones first, with their seed."""

    kind: ClassVar[str] = "reroll_answered"
    side: str
    at: int
    group: str
    option: str
    values: tuple[int, ...]
    roll: Roll

    @property
    def rerolled(self) -> bool:
        return bool(self.option)


@dataclass(frozen=True, slots=True)
class PowerAgainOffered(Event):
    """A Librarian's Perils marker let him use ``power`` again at once, paying its cost
    [L2846-L2851]: the battle waits for his player (rulings 157)."""

    kind: ClassVar[str] = "power_again_offered"
    unit: str
    power: str


@dataclass(frozen=True, slots=True)
class PowerAgainDeclined(Event):
    """The Librarian's player did not use the power again (rulings 157)."""

    kind: ClassVar[str] = "power_again_declined"
    unit: str
    power: str


EVENT_CODEC = TaggedCodec(
    "event",
    (
        BattleCreated,
        UnitDeployed,
        UnitDeployedAboard,
        DeploymentEnded,
        SquareAwaited,
        TurnStarted,
        OrdersPlaced,
        OrdersCommitted,
        OrderRevealed,
        UnitMoved,
        UnitEmbarked,
        UnitFlipped,
        UnitShot,
        AssaultResolved,
        StepsTaken,
        ArmourSaved,
        SuppressedPlaced,
        UnitsActivated,
        ForcedMove,
        ActivationEnded,
        ReserveEnded,
        TurnEnded,
        BattleEnded,
        ResultConfirmed,
        BurstDeclared,
        DamageLocated,
        DestructionDealt,
        TemplatePlaced,
        PowerManifested,
        SuppressedRemoved,
        PowerLost,
        InitiativeKept,
        UnitSniped,
        MoveDeclared,
        OverwatchAnswered,
        ScoutingStarted,
        ScoutMoved,
        ScoutingEnded,
        CardsDrawn,
        HandDrawn,
        CardPlayed,
        CardBonusUsed,
        PowersMaintained,
        FlamerFired,
        GrenadeThrown,
        RepairReadied,
        RepairUsed,
        Demolished,
        EquipmentReadied,
        EquipmentUsed,
        BeamFired,
        UnitsJumped,
        JumpLanded,
        UnitSpotted,
        RerollOffered,
        RerollAnswered,
        PowerAgainOffered,
        PowerAgainDeclined,
        *UNDO_EVENTS,  # the log's undo bookkeeping: a log with an undo is stored and read back
    ),
)
