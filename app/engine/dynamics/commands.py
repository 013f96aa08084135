"""The commands of a Dynamics battle. The PEN set-up commands and the PEN actions (move,
shoot, charge, fight, arrive, report control) are the PEN battle's own classes; the common
turn adds its own."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from app.engine.dynamics.orders import Order
from app.engine.dynamics.setup import DynamicsSetup
from app.engine.match.codec import Tagged, TaggedCodec
from app.engine.pen.battle.commands import (
    ApproveUndo,
    Arrive,
    Charge,
    ChooseFirst,
    DeclareReserve,
    Deploy,
    Disembark,
    Embark,
    EndStep,
    Fight,
    GoToGround,
    Move,
    Ram,
    RefuseUndo,
    ReportControl,
    RollOff,
    ScoutMove,
    Shoot,
    Undo,
)

__all__ = [
    "COMMAND_CODEC",
    "ChooseStarter",
    "CreateDynamics",
    "EndOrder",
    "ExtremeMethod",
    "LockOrders",
    "PlaceOrder",
    "Postpone",
    "Retarget",
    "RevealOrder",
    "RollAdvantage",
    "StartTurn",
]


class Command(Tagged):
    __slots__ = ()


@dataclass(frozen=True, slots=True)
class CreateDynamics(Command):
    kind: ClassVar[str] = "create_dynamics"
    setup: DynamicsSetup  # not in the codec: the match layer creates the battle


@dataclass(frozen=True, slots=True)
class StartTurn(Command):
    """Start-of-turn tests for both players: dawn, reserve rolls, regroup [L169]."""

    kind: ClassVar[str] = "start_turn"


@dataclass(frozen=True, slots=True)
class RollAdvantage(Command):
    """Roll this step's advantage test; ``spend_bonus``: the +1 holder uses it now (declared
    before the dice [L160])."""

    kind: ClassVar[str] = "roll_advantage"
    spend_bonus: bool = False


@dataclass(frozen=True, slots=True)
class ChooseStarter(Command):
    kind: ClassVar[str] = "choose_starter"
    seat: str


@dataclass(frozen=True, slots=True)
class PlaceOrder(Command):
    """Put a face-down order on a unit (again, to change it, until you lock)."""

    kind: ClassVar[str] = "place_order"
    unit: str
    order: Order


@dataclass(frozen=True, slots=True)
class LockOrders(Command):
    kind: ClassVar[str] = "lock_orders"


@dataclass(frozen=True, slots=True)
class RevealOrder(Command):
    kind: ClassVar[str] = "reveal_order"
    unit: str
    target: str = ""
    mode: str = ""
    tank_shock_inches: int | None = None
    tank_shock_direction: str = ""
    with_passengers: bool = False
    delay_to: str = ""


@dataclass(frozen=True, slots=True)
class Retarget(Command):
    """A Tactical Move that passes a Leadership test may shoot another target [L31]."""

    kind: ClassVar[str] = "retarget"
    unit: str
    target: str


@dataclass(frozen=True, slots=True)
class Postpone(Command):
    """Out of range now: the order waits for later in its pass; its token stays [L253-L255]."""

    kind: ClassVar[str] = "postpone"
    unit: str


@dataclass(frozen=True, slots=True)
class ExtremeMethod(Command):
    """A conflict the three principles do not settle: for ``units`` (orders of this pass not
    begun yet, of both players) the phases come back: all moves, then the shots and runs,
    then the charges [L269-L275]. ``end_order`` ends a unit's part of each phase."""

    kind: ClassVar[str] = "extreme_method"
    units: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class EndOrder(Command):
    kind: ClassVar[str] = "end_order"
    unit: str


COMMAND_CODEC = TaggedCodec(
    "command",
    [
        DeclareReserve,
        EndStep,
        RollOff,
        ChooseFirst,
        Deploy,
        Embark,
        ScoutMove,
        StartTurn,
        RollAdvantage,
        ChooseStarter,
        Arrive,
        PlaceOrder,
        LockOrders,
        RevealOrder,
        Move,
        Ram,
        Disembark,
        GoToGround,
        Retarget,
        Shoot,
        Charge,
        Fight,
        Postpone,
        EndOrder,
        ExtremeMethod,
        ReportControl,
        Undo,
        ApproveUndo,
        RefuseUndo,
    ],
)
