"""The events of a Dynamics battle: the PEN battle's own events (set-up, moves, shots,
combats, tests, game length, scoring) plus those of the common turn.

Secrecy: :class:`OrderChosen` is the only event that holds a hidden order; the rule book
emits it with its owner's seat as audience, so it is absent from the opponent's log. Every
placement emits exactly one public :class:`OrderCommitted` and one secret
:class:`OrderChosen`, so the gaps in the opponent's sequence numbers say no more than the
public commitment does. :class:`OrdersLocked` and :class:`OrderRevealed` are barriers: no
undo crosses them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from app.engine.dynamics.orders import Order
from app.engine.dynamics.setup import DynamicsSetup
from app.engine.dynamics.state import Declaration, DynStage
from app.engine.match.codec import TaggedCodec
from app.engine.match.dice import Roll
from app.engine.match.events import Event
from app.engine.pen.battle import EVENT_CODEC as PEN_EVENTS

__all__ = [
    "EVENT_CODEC",
    "EXTREME_PHASES",
    "AdvantageRolled",
    "DynamicsCreated",
    "ExtremeBegan",
    "ExtremeEnded",
    "ExtremePhaseDone",
    "OrderChosen",
    "OrderCommitted",
    "OrderEnded",
    "OrderPostponed",
    "OrderRevealed",
    "OrdersLocked",
    "PassEnded",
    "PlacingFirstChosen",
    "PlacingRollOff",
    "RetargetTested",
    "StageEntered",
    "StarterChosen",
    "SweepRolled",
    "TurnBegan",
    "TurnEnded",
]


@dataclass(frozen=True, slots=True)
class DynamicsCreated(Event):
    kind: ClassVar[str] = "dynamics_created"
    undoable: ClassVar[bool] = False
    setup: DynamicsSetup


@dataclass(frozen=True, slots=True)
class TurnBegan(Event):
    kind: ClassVar[str] = "turn_began"
    turn: int


@dataclass(frozen=True, slots=True)
class AdvantageRolled(Event):
    """An advantage test [L154-L165]: ``context`` reserves, reveal or resolve; ties re-rolled."""

    kind: ClassVar[str] = "advantage_rolled"
    context: str
    step: int
    roll: Roll
    total_a: int
    total_b: int
    winner: str
    bonus_spent: bool = False


@dataclass(frozen=True, slots=True)
class StarterChosen(Event):
    """The advantage winner goes first or lets the opponent start [L152], [L207], [L225]."""

    kind: ClassVar[str] = "starter_chosen"
    seat: str


@dataclass(frozen=True, slots=True)
class OrderCommitted(Event):
    """PUBLIC: a face-down token on ``unit`` and the hash it commits to."""

    kind: ClassVar[str] = "order_committed"
    seat: str
    unit: str
    turn: int
    commitment: str


@dataclass(frozen=True, slots=True)
class OrderChosen(Event):
    """SECRET (audience: the owner): the order under the token and its nonce."""

    kind: ClassVar[str] = "order_chosen"
    unit: str
    order: Order
    nonce: str


@dataclass(frozen=True, slots=True)
class OrdersLocked(Event):
    kind: ClassVar[str] = "orders_locked"
    undoable: ClassVar[bool] = False
    seat: str


@dataclass(frozen=True, slots=True)
class OrderRevealed(Event):
    """PUBLIC: the order, its nonce (so the commitment can be checked) and its declaration."""

    kind: ClassVar[str] = "order_revealed"
    undoable: ClassVar[bool] = False
    unit: str
    order: Order
    nonce: str
    declaration: Declaration
    step: int  # the pass it will act in


@dataclass(frozen=True, slots=True)
class OrderPostponed(Event):
    kind: ClassVar[str] = "order_postponed"
    unit: str


@dataclass(frozen=True, slots=True)
class OrderEnded(Event):
    kind: ClassVar[str] = "order_ended"
    unit: str


@dataclass(frozen=True, slots=True)
class PassEnded(Event):
    """The pending casualties of the pass leave the table [L231]."""

    kind: ClassVar[str] = "pass_ended"
    step: int


@dataclass(frozen=True, slots=True)
class StageEntered(Event):
    """The common turn moves on: ``stage`` at Initiative ``step``; ``to_act`` is whose go it
    is ("" while an advantage test is awaited)."""

    kind: ClassVar[str] = "stage_entered"
    stage: DynStage
    step: int = 0
    to_act: str = ""


@dataclass(frozen=True, slots=True)
class SweepRolled(Event):
    """The sweeping-advance roll-off of a unit that failed its morale test to shooting while
    ``assaulter`` holds an Assault order against it in the pass (Dyn [L243-L247]): 1D6 + I
    each, caught on a total <= the assaulter's (PEN [L1258]). Caught, it is not destroyed: it
    turns to face the assault (no longer retreating); escaped, it falls back."""

    kind: ClassVar[str] = "sweep_rolled"
    unit: str
    assaulter: str
    roll: Roll
    caught: bool


@dataclass(frozen=True, slots=True)
class RetargetTested(Event):
    """A Tactical Move's Leadership test to shoot ``target`` instead of the declared one
    [L31]; passed, ``target`` becomes its shooting target."""

    kind: ClassVar[str] = "retarget_tested"
    unit: str
    target: str
    roll: Roll
    passed: bool


EXTREME_PHASES = ("move", "shoot", "charge")


@dataclass(frozen=True, slots=True)
class ExtremeBegan(Event):
    """The extreme method for ``units`` in this pass: the move phase first [L273]."""

    kind: ClassVar[str] = "extreme_began"
    units: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class ExtremePhaseDone(Event):
    """``unit`` is done with the current phase of the extreme method."""

    kind: ClassVar[str] = "extreme_phase_done"
    unit: str


@dataclass(frozen=True, slots=True)
class ExtremeEnded(Event):
    """The extreme method's units are all resolved; ``last``: the seat that acted last."""

    kind: ClassVar[str] = "extreme_ended"
    last: str


@dataclass(frozen=True, slots=True)
class PlacingRollOff(Event):
    """The roll-off for who places infiltrators first, or who makes scout moves first
    (``stage``: the PEN set-up step, ``infiltrate`` or ``scout``) [L142]: 1D6 each, ties
    re-rolled; the winner chooses."""

    kind: ClassVar[str] = "placing_roll_off"
    stage: str
    roll: Roll
    winner: str


@dataclass(frozen=True, slots=True)
class PlacingFirstChosen(Event):
    """The roll-off winner's choice: ``seat`` places its infiltrators (makes its scout moves)
    first; the other waits until that seat has ended the step [L142]."""

    kind: ClassVar[str] = "placing_first_chosen"
    stage: str
    seat: str


@dataclass(frozen=True, slots=True)
class TurnEnded(Event):
    kind: ClassVar[str] = "turn_ended"
    turn: int


OWN_EVENTS = (
    DynamicsCreated,
    TurnBegan,
    AdvantageRolled,
    StarterChosen,
    OrderCommitted,
    OrderChosen,
    OrdersLocked,
    OrderRevealed,
    OrderPostponed,
    OrderEnded,
    PassEnded,
    StageEntered,
    TurnEnded,
    SweepRolled,
    ExtremeBegan,
    ExtremePhaseDone,
    ExtremeEnded,
    RetargetTested,
    PlacingRollOff,
    PlacingFirstChosen,
)

EVENT_CODEC = TaggedCodec("event", [*PEN_EVENTS.classes(), *OWN_EVENTS])
