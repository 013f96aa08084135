"""The state of a Dynamics battle: the PEN battle state it is played on (``battle``) and the
common turn around it (rules/dynamics.md §6.2): stage, Initiative step, whose go it is, the
advantage, the hidden orders (kept here, server side; views filter them) and the pending
casualties of the current resolution pass."""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass, field, replace

from app.engine.dynamics.orders import Order
from app.engine.dynamics.setup import DynamicsSetup
from app.engine.pen.battle.state import BattleState

__all__ = ["Declaration", "DynStage", "DynamicsState", "Slot"]


class DynStage(enum.StrEnum):
    SETUP = "setup"  # the PEN set-up (reserves, deployment roll-off, deployment, scouts)
    TURN_START = "turn_start"  # start-of-turn tests, reserve rolls [L169]
    ARRIVALS = "arrivals"  # arriving reserves placed alternately [L152]
    PLACEMENT = "placement"  # hidden orders [L167-L185]
    REVEAL = "reveal"  # Initiative 1 -> 10 [L187-L211]
    RESOLVE = "resolve"  # Initiative 10 -> 1 [L213-L257]
    OVER = "over"  # the PEN scoring / end (the battle's own stage says which)


@dataclass(frozen=True, slots=True)
class Declaration:
    """What the owner says when an order is revealed [L199]."""

    target: str = ""  # shooting / charge target
    mode: str = ""  # Deep Strike: "run" or "shoot" [L124]
    tank_shock_inches: int | None = None  # Tactical Move, vehicle [L33]
    tank_shock_direction: str = ""
    with_passengers: bool = False  # a transport acts at its passengers' pass [L223]
    delay_to: str = ""  # an IC acts with this escort [L219]


@dataclass(frozen=True, slots=True)
class Slot:
    """One unit's order this turn. ``order`` and ``nonce`` are SECRET until ``revealed``."""

    unit: str
    seat: str
    commitment: str
    order: Order | None = None
    nonce: str = ""
    revealed: bool = False
    declaration: Declaration = Declaration()
    step: int = 0  # the resolution pass it acts in
    resolved: bool = False
    postponed: int = 0
    moved: bool = False
    shot: bool = False
    charged: bool = False
    rounds: int = 0  # close-combat rounds fought by this order
    retarget_tested: bool = False  # a Tactical Move's Ld test to shoot another target [L31]


@dataclass(frozen=True, slots=True)
class DynamicsState:
    setup: DynamicsSetup | None = None
    battle: BattleState = field(default_factory=BattleState)
    stage: DynStage = DynStage.SETUP
    turn: int = 0
    placements: int = 0  # running count of orders placed (the nonces' counter)
    slots: Mapping[str, Slot] = field(default_factory=dict)
    locked: tuple[str, ...] = ()  # seats that locked their orders, in order
    bonus: str = ""  # who locked first this turn: +1 once [L160], [L185]
    bonus_spent: bool = False
    step: int = 0  # the current Initiative step (reveal or resolve)
    advantage: str = ""  # who won the advantage test of this step ("" when none yet)
    to_act: str = ""  # whose go it is ("" while an advantage test is awaited)
    active: str = ""  # the unit whose order is being resolved
    pass_start: Mapping[str, int] = field(default_factory=dict)  # models at the pass's start
    shot_losses: Mapping[str, int] = field(default_factory=dict)  # lost to shooting this pass
    morale_done: frozenset[str] = frozenset()
    scouted: frozenset[str] = frozenset()
    # the set-up's roll-offs for infiltrators and scout moves [L142]: PEN step -> seat
    placing_winner: Mapping[str, str] = field(default_factory=dict)  # who won the roll-off
    placing_first: Mapping[str, str] = field(default_factory=dict)  # who goes first
    effects: Mapping[str, int] = field(default_factory=dict)  # shaken/stunned: turn inflicted
    rolls: Mapping[str, int] = field(default_factory=dict)  # dice events per unit this turn
    # the extreme method in this pass [L269-L275]: its units, its sub-phase, who is done with it
    extreme: tuple[str, ...] = ()
    extreme_phase: str = ""  # "move", "shoot" (shots and runs), "charge"
    extreme_done: frozenset[str] = frozenset()

    def with_slot(self, slot: Slot) -> DynamicsState:
        slots = dict(self.slots)
        slots[slot.unit] = slot
        return replace(self, slots=slots)

    def needs_order(self, seat: str) -> list[str]:
        """The units of ``seat`` on the battlefield: each takes exactly one order [L171],
        including the squads embarked in a transport on the table (dynamics rulings D21)."""
        return sorted(u.id for u in self.battle.seat_units(seat) if self.on_battlefield(u.id))

    def on_battlefield(self, unit: str) -> bool:
        """On the table, or embarked in a transport that is on the table."""
        me = self.battle.units[unit]
        if me.on_table:
            return True
        carrier = self.battle.units.get(me.transport or "")
        return me.embarked and carrier is not None and carrier.on_table

    def passengers(self, transport: str) -> list[str]:
        """The squads a transport carries: embarked in it now, or named by the set-up."""
        named = self.setup.transports.get(transport, ()) if self.setup is not None else ()
        inside = [u.id for u in self.battle.units.values() if u.transport == transport]
        return sorted({*named, *inside} & {u for u, me in self.battle.units.items() if me.alive})
