"""The commands a seat sends to a Black Reach battle (``{"type": kind, ...}`` in JSON)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from app.engine.black_reach.battle.setup import BattleSetup
from app.engine.black_reach.turn import TokenKind
from app.engine.match.codec import Tagged, TaggedCodec

__all__ = [
    "COMMAND_CODEC",
    "ApproveUndo",
    "Assault",
    "Burst",
    "BurstShare",
    "ChooseSquare",
    "Command",
    "ConfirmResult",
    "CreateBattle",
    "DeclinePower",
    "Demolish",
    "DeployAboard",
    "DeployUnit",
    "DoubleShot",
    "DrawCards",
    "EndDeployment",
    "EndReserve",
    "EndScouting",
    "Flame",
    "Grenade",
    "Hold",
    "KeepRoll",
    "KeptPower",
    "Kombi",
    "MaintainPowers",
    "Manifest",
    "Move",
    "OrderSpec",
    "Overwatch",
    "PassOverwatch",
    "PlaceOrders",
    "PlayCard",
    "ReadyEquipment",
    "ReadyRepair",
    "RefuseUndo",
    "Reroll",
    "ReserveMove",
    "ScoutMove",
    "Shoot",
    "Snipe",
    "Step",
    "TemplateFire",
    "Undo",
    "VehicleFire",
    "WeaponShot",
]


class Command(Tagged):
    __slots__ = ()


@dataclass(frozen=True, slots=True)
class Step:
    """Where the unit stands after one step of a move: its anchor square and facing (a
    1-square unit's facing may be left out: it keeps the one it had)."""

    x: int
    y: int
    facing: str | None = None


@dataclass(frozen=True, slots=True)
class OrderSpec:
    """A token placed face down on a unit: numbered (``number`` 1..n), special or bluff.
    ``nonce`` salts its public commitment (the façade draws one when it is empty)."""

    unit: str
    kind: TokenKind = TokenKind.NUMBERED
    number: int = 0
    nonce: str = ""


@dataclass(frozen=True, slots=True)
class CreateBattle(Command):
    kind: ClassVar[str] = "create_battle"
    setup: BattleSetup


@dataclass(frozen=True, slots=True)
class DeployUnit(Command):
    """Set-up: put one of your counters on the battlefield (again, to move it) in your
    deployment zone: anchor square, facing, and the face it shows (``None``: its first)."""

    kind: ClassVar[str] = "deploy"
    unit: str
    x: int
    y: int
    facing: str = "N"
    face: str | None = None


@dataclass(frozen=True, slots=True)
class DeployAboard(Command):
    """Set-up: put one of your infantry counters aboard one of your transports already on the
    battlefield (it starts the battle embarked, within the transport's capacity), on the face
    it shows (``None``: its first); rulings 141."""

    kind: ClassVar[str] = "deploy_aboard"
    unit: str
    transport: str
    face: str | None = None


@dataclass(frozen=True, slots=True)
class EndDeployment(Command):
    """Set-up: every counter of yours is placed; the battle starts when both sides are."""

    kind: ClassVar[str] = "end_deployment"


@dataclass(frozen=True, slots=True)
class ScoutMove(Command):
    """After deployment: a unit with Scout (N) makes its free Movement Action of N squares
    [L1944-L1965]."""

    kind: ClassVar[str] = "scout_move"
    unit: str
    path: tuple[Step, ...]


@dataclass(frozen=True, slots=True)
class EndScouting(Command):
    """After deployment: this side's Scout moves are done."""

    kind: ClassVar[str] = "end_scouting"


@dataclass(frozen=True, slots=True)
class PlaceOrders(Command):
    """The seat's Order tokens for this turn, all at once (it is then done placing)."""

    kind: ClassVar[str] = "place_orders"
    orders: tuple[OrderSpec, ...]


@dataclass(frozen=True, slots=True)
class BurstShare:
    """The part of the modified CV a Rafale gives one target (at least +1)."""

    target: str
    cv: int


@dataclass(frozen=True, slots=True)
class Move(Command):
    """Reveal the unit's token and make a Movement Action along ``path``. A unit with Tir en
    Mouvement may shoot ``fire_at`` once during the move, after ``fire_after`` steps (default:
    at the end of the move); a unit with Changement d'état may ``flip`` (Active / Inactive) at
    the ``"start"`` or the ``"end"`` of it, the path then possibly empty."""

    kind: ClassVar[str] = "move"
    unit: str
    path: tuple[Step, ...]
    fire_at: str | None = None
    fire_after: int | None = None
    flip: str | None = None  # Changement d'état: "start" or "end" of the move
    embark: str | None = None  # infantry: get into this transport at the end of the move
    demolish: str | None = None  # Démolisseur: the structure it damages at the end of it
    # Lance-Flammes during the move (its template's Tir en Mouvement -2), pointing N/E/S/W,
    # after fire_after steps, instead of fire_at (rulings 109)
    flame: str | None = None
    fire_second: str | None = None  # Double Tir on the move: its second target (rulings 123)
    burst: tuple[BurstShare, ...] = ()  # Rafale on the move, instead of fire_at (rulings 123)
    # a heavy vehicle's Tir en Mouvement weapons, as vehicle_fire's shots (Double Tir, Rafale),
    # instead of fire_at (rulings 140)
    weapons: tuple[WeaponShot, ...] = ()


@dataclass(frozen=True, slots=True)
class Shoot(Command):
    """Reveal the unit's token and shoot ``target`` (a suppression fire if asked)."""

    kind: ClassVar[str] = "shoot"
    unit: str
    target: str
    suppression: bool = False


@dataclass(frozen=True, slots=True)
class Manifest(Command):
    """A psyker's Alternative Shooting Action: reveal its token and manifest ``power`` (the id
    of a psychic-power option on its tile) on ``target`` when it has one; a Weirdboy may put
    one of the cost's Suppressed markers on the Ork infantry ``share`` within 2 squares."""

    kind: ClassVar[str] = "manifest"
    unit: str
    power: str
    target: str | None = None
    share: str | None = None
    x: int | None = None  # a template power (Da Krunch): the intercase and the facing
    y: int | None = None
    facing: str = "N"
    weapon: str | None = None  # Objuration Mechanicum on a vehicle with several weapons


@dataclass(frozen=True, slots=True)
class TemplateFire(Command):
    """Tir Direct or Tir Indirect (an Alternative Shooting Action): reveal the unit's token,
    place its template on the intercase (``x``, ``y``), turned to ``facing`` (N, E, S, W), and
    attack every unit under it [L1381-L1477]; ``indirect``: without a clear line of sight,
    rolling its dispersion."""

    kind: ClassVar[str] = "template_fire"
    unit: str
    x: int
    y: int
    facing: str = "N"
    indirect: bool = False


@dataclass(frozen=True, slots=True)
class Flame(Command):
    """Lance-Flammes (an Alternative Shooting Action): reveal the unit's token and lay its
    flamer template from its square pointing ``facing`` (N, E, S, W); every unit it reaches
    is attacked and takes 1 Suppressed marker [L1214-L1258]."""

    kind: ClassVar[str] = "flame"
    unit: str
    facing: str = "N"
    # aboard a transport of several squares: the one the flame starts from (rulings 111)
    x: int | None = None
    y: int | None = None


@dataclass(frozen=True, slots=True)
class Grenade(Command):
    """Grenades or Tankbusta Bombs (an Alternative Shooting Action of infantry): reveal the
    unit's token and throw one marker of the equipment ``option`` its group holds: its
    template on the intercase (``x``, ``y``), turned to ``facing``, never scattering; every
    unit under it is attacked [L2515-L2564]."""

    kind: ClassVar[str] = "grenade"
    unit: str
    option: str
    x: int
    y: int
    facing: str = "N"


@dataclass(frozen=True, slots=True)
class Kombi(Command):
    """A Kombi Weapon marker of ``option`` (an Alternative Shooting Action of its Character):
    its Tir Direct (B) on the intercase (``x``, ``y``) turned to ``facing``, at most 6
    intercases away, or with ``flame`` its Lance-Flammes (M) pointing ``facing`` (``x``,
    ``y``: aboard a transport of several squares, the square it starts from) [L2668-L2675]."""

    kind: ClassVar[str] = "kombi"
    unit: str
    option: str
    flame: bool = False
    facing: str = "N"
    x: int | None = None
    y: int | None = None


@dataclass(frozen=True, slots=True)
class Demolish(Command):
    """Destruction: reveal the unit's token and make its Shooting Action at a ``structure``
    itself (a terrain element's id, ``wreck:<unit>`` for a wreck), rolling its Destruction
    dice [L1174-L1194]. (Démolisseur is asked with the move: ``Move.demolish``.)"""

    kind: ClassVar[str] = "demolish"
    unit: str
    structure: str


@dataclass(frozen=True, slots=True)
class WeaponShot:
    """One weapon of a heavy vehicle (``main_1``, ``secondary_1``...) at one target."""

    weapon: str
    target: str
    suppression: bool = False
    share: int | None = None  # Rafale: the part of the weapon's modified CV given to it


@dataclass(frozen=True, slots=True)
class VehicleFire(Command):
    """A heavy vehicle's Shooting Action: reveal its token and fire any of its weapons that
    still work, each once, at the same or different targets, one after the other
    [L563-L577]."""

    kind: ClassVar[str] = "vehicle_fire"
    unit: str
    shots: tuple[WeaponShot, ...]


@dataclass(frozen=True, slots=True)
class DoubleShot(Command):
    """Double Tir: reveal the unit's token and make two Shooting Actions at two different
    ``targets``, one roll each [L1196-L1200] (suppression fires if asked, with Tir de
    Suppression)."""

    kind: ClassVar[str] = "double_shot"
    unit: str
    targets: tuple[str, ...]
    suppression: bool = False


@dataclass(frozen=True, slots=True)
class Overwatch(Command):
    """En Alerte: a unit of the side that does not move, not activated this turn, shoots the
    declared move's unit where it stands after ``after`` steps of its path [L1202-L1212]
    (a suppression fire if asked, with Tir de Suppression)."""

    kind: ClassVar[str] = "overwatch"
    unit: str
    after: int
    suppression: bool = False


@dataclass(frozen=True, slots=True)
class ChooseSquare(Command):
    """The owner's square for its unit retreating from an assault or pushed aside by a
    vehicle, among those the battle offers (rulings 142)."""

    kind: ClassVar[str] = "choose_square"
    unit: str
    x: int
    y: int


@dataclass(frozen=True, slots=True)
class PassOverwatch(Command):
    """No En Alerte against the declared move: it is made at once."""

    kind: ClassVar[str] = "pass_overwatch"


@dataclass(frozen=True, slots=True)
class Snipe(Command):
    """Sniper: reveal the unit's token and make its Alternative Shooting Action at an infantry
    ``target``: one die on the sniper table [L1324-L1344]."""

    kind: ClassVar[str] = "snipe"
    unit: str
    target: str


@dataclass(frozen=True, slots=True)
class Burst(Command):
    """Rafale: reveal the unit's token and split its modified CV between several targets of
    one class within 2 squares of each other, one roll each [L1296-L1317]."""

    kind: ClassVar[str] = "burst"
    unit: str
    shares: tuple[BurstShare, ...]


@dataclass(frozen=True, slots=True)
class Assault(Command):
    """Reveal the unit's token, move along ``path`` to a square next to ``target`` (empty:
    it is already there) and assault it, with the declared ``supporters``."""

    kind: ClassVar[str] = "assault"
    unit: str
    target: str
    path: tuple[Step, ...] = ()
    supporters: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Hold(Command):
    """Reveal the unit's token and do nothing (also how a token on a destroyed or Activated
    unit is played: revealed with no effect)."""

    kind: ClassVar[str] = "hold"
    unit: str


@dataclass(frozen=True, slots=True)
class ReserveMove(Command):
    """Reserve phase: a unit with no numbered or Special token and no Activated marker
    moves."""

    kind: ClassVar[str] = "reserve_move"
    unit: str
    path: tuple[Step, ...]
    embark: str | None = None
    demolish: str | None = None  # Démolisseur: the structure it damages at the end of it


@dataclass(frozen=True, slots=True)
class EndReserve(Command):
    kind: ClassVar[str] = "end_reserve"


@dataclass(frozen=True, slots=True)
class DrawCards(Command):
    """Discard any of your Action cards (copies ``<card>#<n>`` in your hand), then draw up to
    the scenario's hand size [L2073-L2077]: owed at the start of each turn, before placing
    your tokens (the first turn's deal, then the refill of the Reserve phase's step 6)."""

    kind: ClassVar[str] = "draw_cards"
    discard: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class PlayCard(Command):
    """Play an Action card of your hand face up [L2085-L2130]: ``use`` ``"bonus"``: its
    Alternative Bonus on your ``unit``, before its dice or its Movement Action; ``"event"``:
    its Battle Event, whose text the players apply."""

    kind: ClassVar[str] = "play_card"
    card: str
    use: str = "bonus"
    unit: str | None = None


@dataclass(frozen=True, slots=True)
class ReadyRepair(Command):
    """Ready a Mekaniak (``modifier`` -1 or +1, -2 or +2 with a Grot Oiler) or a Techmarine
    (``pick`` "low" or "high": the die kept of two) for the next location roll of an allied
    heavy vehicle near him [L1831-L1859], [L1890-L1902]; sent again, it replaces the last."""

    kind: ClassVar[str] = "ready_repair"
    unit: str
    modifier: int = 0
    pick: str = ""


@dataclass(frozen=True, slots=True)
class ReadyEquipment(Command):
    """Announce ``count`` (1-3) markers of an equipment ``option`` for your ``unit``'s next
    action, before any die [L2486-L2496] (rulings 127); a Boss Pole's marker names the
    ``bonus`` it gives (dakka, boss, zag: note §8 item 28)."""

    kind: ClassVar[str] = "ready_equipment"
    unit: str
    option: str
    count: int = 1
    bonus: str | None = None


@dataclass(frozen=True, slots=True)
class KeptPower:
    """A persistent power kept in play: the psyker and the power (its option id)."""

    unit: str
    power: str


@dataclass(frozen=True, slots=True)
class MaintainPowers(Command):
    """At the start of the Order phase, the side's psykers maintain the persistent powers in
    ``keep`` (each pays its cost again in Suppressed markers, no Perils test); the side's
    other power markers are discarded [L2760-L2772]. Owed before placing the tokens."""

    kind: ClassVar[str] = "maintain_powers"
    keep: tuple[KeptPower, ...] = ()


@dataclass(frozen=True, slots=True)
class Reroll(Command):
    """The answer of the side asked about a roll: reroll it with one marker of ``option``
    (Purity Seals, a Boss Pole's Grim) held by ``group``; the new result stands (rulings
    153-155)."""

    kind: ClassVar[str] = "reroll"
    group: str
    option: str


@dataclass(frozen=True, slots=True)
class KeepRoll(Command):
    """The answer of the side asked about a roll: it stands, the command goes on."""

    kind: ClassVar[str] = "keep_roll"


@dataclass(frozen=True, slots=True)
class DeclinePower(Command):
    """A Librarian's Perils marker let him use the power again: his player does not
    (rulings 157). To use it, send the ``manifest`` of that power again."""

    kind: ClassVar[str] = "decline_power"


@dataclass(frozen=True, slots=True)
class ConfirmResult(Command):
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
    (
        CreateBattle,
        DeployUnit,
        DeployAboard,
        EndDeployment,
        PlaceOrders,
        Move,
        Shoot,
        Assault,
        Hold,
        DoubleShot,
        Burst,
        Snipe,
        VehicleFire,
        TemplateFire,
        Flame,
        Grenade,
        Kombi,
        Demolish,
        Manifest,
        Overwatch,
        PassOverwatch,
        ChooseSquare,
        ScoutMove,
        EndScouting,
        ReserveMove,
        EndReserve,
        DrawCards,
        PlayCard,
        MaintainPowers,
        ReadyRepair,
        ReadyEquipment,
        Reroll,
        KeepRoll,
        DeclinePower,
        ConfirmResult,
        Undo,
        ApproveUndo,
        RefuseUndo,
    ),
)
