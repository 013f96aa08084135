"""The state of a PEN battle: immutable values that ``evolve`` rebuilds from the log."""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass, field, replace

from app.engine.pen.battle.setup import BattleSetup, UnitSpec, other

__all__ = ["BattleState", "Phase", "Place", "ReserveMode", "Speed", "Stage", "UnitState"]


class Stage(enum.StrEnum):
    CREATED = "created"
    RESERVES = "reserves"  # each player declares his reserves [L854-L858]
    ROLL_OFF = "roll_off"  # 1D6 each, ties re-rolled [L832]
    CHOOSE = "choose"  # the winner chooses who plays first [L832-L834]
    DEPLOY = "deploy"  # first player, then second [L832], [L848]
    INFILTRATE = "infiltrate"  # Infiltration after the main armies [L422]
    SCOUT = "scout"  # Scout moves before turn 1 [L457]
    BATTLE = "battle"
    SCORING = "scoring"  # the game is over: the players report who holds each objective
    ENDED = "ended"


class Phase(enum.StrEnum):
    START = "start"  # §4.1
    MOVEMENT = "movement"  # movement and shooting, squad by squad [L991]
    ASSAULT = "assault"  # §4.4


class Place(enum.StrEnum):
    UNDEPLOYED = "undeployed"
    TABLE = "table"
    RESERVE = "reserve"
    AVAILABLE = "available"  # rolled its arrival: comes on in this movement phase [L867]
    EMBARKED = "embarked"  # carried by a transport (``UnitState.transport``) [L270-L335]
    DESTROYED = "destroyed"


class ReserveMode(enum.StrEnum):
    STANDARD = "standard"
    OUTFLANK = "outflank"  # [L869-L880]
    DEEP_STRIKE = "deep_strike"  # [L882-L900]


class Speed(enum.StrEnum):
    STATIONARY = "stationary"
    NORMAL = "normal"
    RAPID = "rapid"


@dataclass(frozen=True, slots=True)
class UnitState:
    id: str
    seat: str
    models_start: int
    models: int
    wounds: int  # W per model (1 for a vehicle)
    place: Place = Place.UNDEPLOYED
    reserve: ReserveMode | None = None
    rules: frozenset[str] = frozenset()  # its special rules (``Rule`` values)
    troops: bool = False
    wounds_taken: int = 0  # wounds on the model being worn down (carried between attacks)
    # vehicles
    hull_points: int | None = None
    hp_lost: int = 0
    damage_bonus: int = 0
    weapons_damaged: bool = False
    reduced_mobility: bool = False
    immobilised: bool = False
    shaken: bool = False  # until the end of its next turn: snap fire only [L1436]
    stunned: bool = False  # ... and it cannot move [L1443]
    results_this_turn: tuple[str, ...] = ()
    # the squad's tokens (aide-memoire §7.2)
    retreating: bool = False
    down_until: int = 0  # gone to ground until the end of this turn index [L1138]
    regrouped: bool = False  # regrouped this turn: moves or shoots, not both [L975]
    locked: frozenset[str] = frozenset()  # enemy squads it is locked in combat with
    # this turn's actions
    speed: Speed | None = None  # its last movement (read by the enemy's BS modifiers)
    moved: int = 0
    scouted: bool = False  # made a scout move before turn 1 [L457] (the first turn, [L1337])
    arrived_deep_strike: bool = False
    activated: bool = False
    shot: bool = False
    shot_at: frozenset[str] = frozenset()
    charged: bool = False
    fought: bool = False
    consolidated: bool = False
    # the casualties its side lost this phase's combat by (0: a draw), while it is still
    # locked and may choose to retreat [L1244], [L1254]; None otherwise
    combat_gap: int | None = None
    # tests owed at the end of an enemy squad's shooting [L1162], [L685]
    fire_from: str | None = None
    models_before_fire: int = 0
    taken_before_fire: int = 0  # the worn model's lost W when that squad first shot it
    pinning_pending: bool = False
    rolls: int = 0  # dice-rolling commands of this squad this turn (the seed's identity)
    poisoned: bool = False  # the worn model lost a W to a poisoned weapon: T test [L665]
    transport: str | None = None  # the transport it is embarked in
    transferred: bool = False  # embarked or disembarked this turn (one of them) [L277]
    fired_models: int = 0  # its models that fired from its transport this turn [L295]
    carried_out: bool = False  # a transport whose passengers got out before it moved [L279]
    rammed: bool = False  # rammed this turn: no shooting, no charge [L1012]
    out_of_control: bool = False  # HC: it rams first in its next movement phase [L995]
    alert: bool = False  # on alert: it shoots in the next enemy movement phase [L959]
    stopped: bool = False  # alert fire stopped it: no shooting, no charge this turn [L966]
    # duels [L1223-L1228], until the end of the turn
    challenged_by: str | None = None  # a challenge waiting for its answer
    duel: str | None = None  # the character it fights in a duel
    refused_duel: bool = False  # it refused a duel: I1 until the end of the turn
    # Hit & Run [L416]: the Initiative step it tries to leave after (0: its own), this phase
    hit_and_run: int | None = None

    @property
    def embarked(self) -> bool:
        return self.place is Place.EMBARKED and self.models > 0

    @property
    def alive(self) -> bool:
        return self.place is not Place.DESTROYED and self.models > 0

    @property
    def distance_token(self) -> str | None:
        """The aide-memoire's movement token [L1483-L1489]: ST, M1 (> 12 ps), M2 (> 18 ps)."""
        if self.speed is Speed.STATIONARY:
            return "stationary"
        if self.moved > 18:
            return "moved_over_18"
        if self.moved > 12:
            return "moved_over_12"
        return None

    @property
    def on_table(self) -> bool:
        return self.place is Place.TABLE and self.models > 0

    @property
    def is_vehicle(self) -> bool:
        return self.hull_points is not None or self.wounds == 0


@dataclass(frozen=True, slots=True)
class BattleState:
    setup: BattleSetup | None = None
    stage: Stage = Stage.CREATED
    units: Mapping[str, UnitState] = field(default_factory=dict)
    ready: frozenset[str] = frozenset()  # seats done with the current set-up step
    roll_off_winner: str | None = None
    first: str | None = None
    round: int = 0
    turn: int = 0  # 0: the first player's turn of the round, 1: the second's
    phase: Phase | None = None
    night: bool = True  # the game always starts at night [L944]
    active_unit: str | None = None  # the squad moving and shooting now [L991]
    control: Mapping[str, str | None] = field(default_factory=dict)  # objective -> seat
    result: Mapping[str, int] = field(default_factory=dict)  # seat -> VP at the end
    winner: str | None = None
    confirmed: frozenset[str] = frozenset()  # seats that confirmed the objectives reported
    # the alternation mode of §3.5 [L836-L846]
    playing: str | None = None  # the squad being played (all its phases) [L842]
    deploy_next: str | None = None  # who deploys the next squad [L838]

    @property
    def spec(self) -> Mapping[str, UnitSpec]:
        assert self.setup is not None
        return {u.id: u for a in self.setup.armies for u in a.units}

    def unit_spec(self, unit: str) -> UnitSpec:
        assert self.setup is not None
        for army in self.setup.armies:
            for u in army.units:
                if u.id == unit:
                    return u
        raise KeyError(unit)

    @property
    def active_seat(self) -> str | None:
        if self.first is None or self.stage is not Stage.BATTLE:
            return None
        return self.first if self.turn == 0 else other(self.first)

    @property
    def alternation(self) -> bool:
        return self.setup is not None and self.setup.alternation

    @property
    def turn_index(self) -> int:
        """A running count of player turns (1 = the first player's first turn); in the
        alternation mode, of game rounds (odd numbers)."""
        if self.alternation:
            return 2 * self.round - 1
        return (self.round - 1) * 2 + self.turn + 1

    @property
    def down_until_next(self) -> int:
        """``down_until`` for "until the end of the next turn" [L1138]; in the alternation
        mode, until the end of the next round (the squad's next activation at the latest,
        [L845]; pen rulings)."""
        return self.turn_index + (2 if self.alternation else 1)

    def unplayed(self, seat: str) -> list[str]:
        """The squads of ``seat`` still to play this round (alternation mode [L842-L844])."""
        return sorted(
            u.id
            for u in self.seat_units(seat)
            if u.place in (Place.TABLE, Place.AVAILABLE) and u.models > 0 and not u.activated
        )

    def gone_to_ground(self, unit: UnitState) -> bool:
        return unit.down_until >= self.turn_index

    def seat_units(self, seat: str) -> list[UnitState]:
        return [u for u in self.units.values() if u.seat == seat]

    def with_unit(self, unit: UnitState) -> BattleState:
        units = dict(self.units)
        units[unit.id] = unit
        return replace(self, units=units)
