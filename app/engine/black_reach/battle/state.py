"""The state of a Black Reach battle: what ``evolve`` builds from the log.

It holds the server's whole truth, the face-down Order tokens included (``secret``): the
views (:mod:`.views`) decide what each seat may see, never this module.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from enum import StrEnum

from app.engine.black_reach.armies import Catalogue
from app.engine.black_reach.battle.commands import BurstShare, Step, WeaponShot
from app.engine.black_reach.board import Board, TerrainElement, with_elements, with_ruins
from app.engine.black_reach.forces import Counter, CounterState, Face, FaceKind, Group
from app.engine.black_reach.gear import Gear, geared
from app.engine.black_reach.movement import BoardUnit, Placement
from app.engine.black_reach.scenario import Scenario
from app.engine.black_reach.turn import Phase, Token, TurnState, due

__all__ = [
    "BattleState",
    "PendingReroll",
    "PowerMarker",
    "RerollAnswer",
    "SecretOrder",
    "Stage",
    "UnitState",
]


class Stage(StrEnum):
    SETUP = "setup"
    BATTLE = "battle"
    ENDED = "ended"


@dataclass(frozen=True, slots=True)
class SecretOrder:
    """A face-down Order token: its value and the nonce of its public commitment."""

    unit: str
    token: Token
    nonce: str


@dataclass(frozen=True)
class UnitState:
    uid: str
    side: str
    counter: Counter
    status: CounterState
    placement: Placement | None  # None: off the battlefield, or aboard ``embarked_in``
    suppressed: int = 0
    embarked_in: str | None = None
    gear: Gear | None = None  # its permanent equipment's gifts (rulings 126)

    @property
    def face(self) -> Face:
        """The face it shows, with its permanent equipment's gifts (rulings 126)."""
        f = self.counter.face(self.status.face)
        assert f is not None
        return geared(f, self.gear)

    @property
    def alive(self) -> bool:
        return not self.status.destroyed

    @property
    def wreck(self) -> bool:
        """A destroyed vehicle lying on its wreck face: a terrain element [L633-L637]."""
        return (
            self.status.destroyed
            and self.status.face is FaceKind.WRECK
            and self.placement is not None
        )

    def wreck_terrain(self) -> TerrainElement | None:
        """The wreck as a terrain element over its squares, with its face's terrain symbols
        (none printed: an element with no effect)."""
        if not self.wreck:
            return None
        assert self.placement is not None
        terrain = self.face.terrain or TerrainElement("wreck", frozenset())
        return replace(terrain, id=f"wreck:{self.uid}", squares=self.placement.squares)

    @property
    def present(self) -> bool:
        """Alive and on the battlefield or aboard a transport."""
        return self.alive and (self.placement is not None or self.embarked_in is not None)

    def board_unit(self, transport: UnitState | None = None) -> BoardUnit:
        """The unit for the movement rules; an embarked unit needs its ``transport``."""
        if self.embarked_in is not None:
            assert transport is not None
            assert transport.placement is not None
            spot = Placement(transport.placement.anchor)
            return BoardUnit(
                self.uid,
                self.side,
                self.counter.unit_class,
                spot,
                self.suppressed,
                embarked_in=self.embarked_in,
            )
        assert self.placement is not None
        return BoardUnit(
            self.uid,
            self.side,
            self.counter.unit_class,
            self.placement,
            self.suppressed,
            ambushed=self.alive and self.status.face is FaceKind.AMBUSH,  # no ZoC, rulings 115
        )


@dataclass(frozen=True)
class PendingSquare:
    """A unit forced to move, waiting for its owner's square (rulings 142): the squares it
    may take (the first: the default), then the attacker that takes ``entry``."""

    unit: str
    side: str
    why: str
    squares: tuple[Step, ...]
    attacker: str
    entry: Step
    attacker_why: str


@dataclass(frozen=True)
class PendingMove:
    """A Movement Action declared and waiting for the other side's En Alerte: the move as
    sent (its path checked), the side that moves and the side that may react."""

    unit: str
    side: str
    reactor: str
    path: tuple[Step, ...]
    fire_at: str | None = None
    fire_after: int | None = None
    flip: str | None = None  # "end" only: a start flip is made when the move is declared
    embark: str | None = None
    demolish: str | None = None  # Démolisseur at the end of the move: the structure
    flame: str | None = None  # a flamer fired during the move, its direction
    assault: str | None = None  # an assault's move: its target (rulings 122)
    fire_second: str | None = None  # Double Tir on the move (rulings 123)
    burst: tuple[BurstShare, ...] = ()  # Rafale on the move (rulings 123)
    weapons: tuple[WeaponShot, ...] = ()  # a vehicle's weapons on the move (rulings 140)
    supporters: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class PowerMarker:
    """A persistent psychic power's marker [L2743-L2772]: the psyker that controls it, the
    power (its option id) and what it does, the unit it lies on (the psyker's own for
    Warpath) and, for Objuration Mechanicum on a vehicle with several weapons, the weapon."""

    psyker: str
    power: str
    effect: str
    target: str
    weapon: str | None = None

    @property
    def key(self) -> str:
        return f"{self.psyker}|{self.power}"


@dataclass(frozen=True, slots=True)
class RerollAnswer:
    """A side's answer to the offer of a roll (``at``: its first die's index in the paused
    command's dice): rerolled with one of its markers, or kept (rulings 153-155)."""

    at: int
    side: str
    rerolled: bool


@dataclass(frozen=True)
class PendingReroll:
    """A command stopped at a roll that a side holding Purity Seals or a Boss Pole's Grim may
    reroll (rulings 153-155): the command as sent (JSON) and its seat, the dice it drew so far
    in order (a rerolled die with its new value; ``originals``: (index, first value)), whether
    they all came from seeds, the answers given so far, and the offer: the side asked, the
    roll's dice indices and the event the roll makes (JSON, shown to both sides)."""

    command: Mapping[str, object]
    actor: str
    dice: tuple[int, ...]
    originals: tuple[tuple[int, int], ...]
    seeded: bool
    answers: tuple[RerollAnswer, ...]
    side: str
    at: tuple[int, ...]
    event: Mapping[str, object]

    @property
    def unit(self) -> str:
        """The unit of the paused command (its roll identity, its page label)."""
        unit = self.command.get("unit")
        return unit if isinstance(unit, str) else ""


@dataclass(frozen=True)
class BattleState:
    stage: Stage = Stage.SETUP
    scenario: Scenario | None = None
    seats: Mapping[str, str] = field(default_factory=dict)  # seat -> side
    units: Mapping[str, UnitState] = field(default_factory=dict)
    groups: Mapping[str, Group] = field(default_factory=dict)
    turn: TurnState | None = None
    secret: Mapping[str, Mapping[str, SecretOrder]] = field(default_factory=dict)  # side->unit
    activated: frozenset[str] = frozenset()  # Activated markers (supporters, overwatch...)
    acted: frozenset[str] = frozenset()  # units that made their action this turn
    rolls: Mapping[str, int] = field(default_factory=dict)  # rolls per unit this turn
    reserve_done: frozenset[str] = frozenset()  # sides done with the Reserve phase
    deployed: frozenset[str] = frozenset()  # sides done deploying (set-up)
    vp: Mapping[str, int] = field(default_factory=dict)  # side -> VP at the last check
    winner: str | None = None  # a side, or None (a draw once ended)
    reason: str = ""
    confirmed: frozenset[str] = frozenset()  # seats that confirmed the result
    pending: PendingMove | None = None  # a move waiting for the other side's En Alerte
    placing: PendingSquare | None = None  # a forced move waiting for its owner's square
    scouting: tuple[str, ...] = ()  # sides still to make their Scout moves, in order
    scouted: frozenset[str] = frozenset()  # units that made their Scout move
    destruction: Mapping[str, int] = field(default_factory=dict)  # wreck uid -> points
    lost_powers: frozenset[tuple[str, str]] = frozenset()  # (psyker, power) lost for good
    keep_initiative: str | None = None  # Scrier's Gaze this turn: that side keeps it
    # Action cards [L2068-L2202]: copies (``<card>#<n>``) per side; the hands and the decks
    # are secrets of their side (the views show the other side only how many)
    decks: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    hands: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    discards: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    to_draw: frozenset[str] = frozenset()  # sides to discard and draw before placing tokens
    readied: Mapping[str, str] = field(default_factory=dict)  # unit -> card played as its bonus
    # persistent psychic powers [L2743-L2772]: the markers in play ("psyker|power" -> marker)
    # and the sides that decide which to maintain before placing their tokens
    powers: Mapping[str, PowerMarker] = field(default_factory=dict)
    to_maintain: frozenset[str] = frozenset()
    # equipment markers used for good [L2486-L2492]: "<group>|<option>" -> markers used
    equipment_used: Mapping[str, int] = field(default_factory=dict)
    # mechanics readied for an allied heavy vehicle's location roll: unit -> (modifier, pick)
    repairs: Mapping[str, tuple[int, str]] = field(default_factory=dict)
    ruined: frozenset[str] = frozenset()  # board structures destroyed (their element ids)
    # equipment markers announced for a unit's next action: unit -> {"<group>|<option>": n}
    gear_ready: Mapping[str, Mapping[str, int]] = field(default_factory=dict)
    # Da Jump (rulings 132): units off the battlefield -> (the Weirdboy, the turn they left),
    # and the board edges the first of a pair came back by (the Weirdboy -> edges)
    jumped: Mapping[str, tuple[str, int]] = field(default_factory=dict)
    jump_edges: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    # a command stopped at a roll a side may reroll, waiting for its answer (rulings 153)
    reroll: PendingReroll | None = None
    # a Librarian's Perils marker "use the power again": (psyker, power) waiting for its
    # player to manifest it once more or not (rulings 157)
    again: tuple[str, str] | None = None

    # -- helpers ------------------------------------------------------------------------------

    @property
    def board(self) -> Board:
        """The battlefield, with the wrecks lying on it as terrain elements [L633-L637] and
        the destroyed structures on their ruin faces (rulings 134)."""
        assert self.scenario is not None
        board = with_ruins(self.scenario.board, self.ruined)
        return with_elements(board, self.wreck_elements())

    def wreck_elements(self) -> tuple[TerrainElement, ...]:
        return tuple(t for u in self.units.values() if (t := u.wreck_terrain()) is not None)

    @property
    def catalogue(self) -> Catalogue:
        assert self.scenario is not None
        return self.scenario.catalogue

    def side_of(self, seat: str) -> str:
        return self.seats[seat]

    def seat_of(self, side: str) -> str:
        for seat, s in self.seats.items():
            if s == side:
                return seat
        raise KeyError(side)

    @property
    def phase(self) -> str | None:
        return None if self.turn is None or self.stage is not Stage.BATTLE else str(self.turn.phase)

    @property
    def active_seat(self) -> str | None:
        """The seat the battle waits for: the side whose token is due, the side moving in the
        Reserve phase; ``None`` in the Order phase (both place at once) and once ended."""
        if self.scouting:
            return self.seat_of(self.scouting[0])
        if self.reroll is not None and self.stage is Stage.BATTLE:
            return self.seat_of(self.reroll.side)
        if self.again is not None and self.stage is Stage.BATTLE:
            return self.seat_of(self.units[self.again[0]].side)
        turn = self.turn
        if turn is None or self.stage is not Stage.BATTLE:
            return None
        if turn.phase is Phase.ACTIVATION:
            if self.placing is not None:
                return self.seat_of(self.placing.side)
            if self.pending is not None:
                return self.seat_of(self.pending.reactor)
            now = due(turn)
            return None if now is None else self.seat_of(now[0])
        if turn.phase is Phase.RESERVE:
            side = turn.initiative if turn.initiative not in self.reserve_done else turn.other
            return self.seat_of(side)
        return None

    def on_board(self) -> list[UnitState]:
        """Units standing on the battlefield (wrecks included: they are terrain)."""
        return [u for u in self.units.values() if u.placement is not None and u.alive]

    def present_units(self) -> list[UnitState]:
        """Units on the battlefield or aboard a transport (alive)."""
        return [u for u in self.units.values() if u.present]

    def mover(self, uid: str) -> BoardUnit:
        u = self.units[uid]
        return u.board_unit(self.units[u.embarked_in] if u.embarked_in else None)

    def passengers(self, transport: str) -> list[UnitState]:
        return [u for u in self.units.values() if u.alive and u.embarked_in == transport]

    def board_units(self, *, leave_out: frozenset[str] = frozenset()) -> list[BoardUnit]:
        return [u.board_unit() for u in self.on_board() if u.uid not in leave_out]
