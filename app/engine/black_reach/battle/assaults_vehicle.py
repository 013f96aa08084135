"""A vehicle's assault on infantry (rulings 119) [L1676-L1700]: when the infantry defender
wins, or on a tie, the vehicle takes the defender's square and pushes the infantry to a free
square next to it (a Forced Move); when the vehicle wins, the infantry takes its step and
retreats as from any attacker, and the vehicle takes the square it left.

The push square is the owner's choice in the rulebook: with more than one open square the
battle waits for it (rulings 142; as for the passengers of a destroyed transport, rulings 143),
the first square in reading order offered as the default (on the battlefield, open to
infantry, free, not under the vehicle, out of every enemy zone of control). None, or an MV
of 0 or X: the infantry is destroyed [L3349-L3354], [L353-L366].
"""

from __future__ import annotations

from typing import Protocol

from app.engine.black_reach.battle.commands import Step
from app.engine.black_reach.battle.events import ForcedMove, SquareAwaited, StepsTaken
from app.engine.black_reach.battle.state import BattleState, UnitState
from app.engine.black_reach.board import Square, UnitClass
from app.engine.black_reach.movement import Placement, zone_of_control
from app.engine.match.events import Event

__all__ = [
    "PUSHED",
    "TAKES",
    "push_square",
    "push_squares",
    "vehicle_on_infantry",
    "vehicle_takes_and_pushes",
]

PUSHED = "pushed aside by the vehicle"
TAKES = "takes the defender's square"


class Out(Protocol):
    state: BattleState

    def emit(self, event: Event, audience: tuple[str, ...] | None = None) -> None: ...


def vehicle_on_infantry(attacker: UnitState, defender: UnitState) -> bool:
    return (
        attacker.counter.unit_class is not UnitClass.INFANTRY
        and defender.counter.unit_class is UnitClass.INFANTRY
    )


def push_square(state: BattleState, pushed: UnitState, under: frozenset[Square]) -> Square | None:
    """Where ``pushed`` goes by default (``None``: nowhere, it is destroyed): the first of
    :func:`push_squares`."""
    squares = push_squares(state, pushed, under)
    return squares[0] if squares else None


def push_squares(state: BattleState, pushed: UnitState, under: frozenset[Square]) -> list[Square]:
    """Where ``pushed`` may go, in reading order (none: it is destroyed); ``under``: the
    squares the vehicle is about to take."""
    if pushed.placement is None or not pushed.face.mv:
        return []  # MV 0 or X: destroyed if forced to move [L302-L314]
    here = pushed.placement.anchor
    zones = [
        zone_of_control(state.board, e.board_unit())
        for e in state.on_board()
        if e.side != pushed.side
        and e.counter.unit_class is UnitClass.INFANTRY
        and not e.suppressed
        and e.placement is not None
    ]
    taken = {sq for u in state.on_board() if u.placement is not None for sq in u.placement.squares}
    return [
        sq
        for sq in sorted(here.neighbours(), key=lambda q: (q.y, q.x))
        if state.board.on_board(sq)
        and not any(e.forbids(UnitClass.INFANTRY) for e in state.board.elements_at(sq))
        and sq not in taken
        and sq not in under
        and not any(sq in z for z in zones)
    ]


def vehicle_takes_and_pushes(out: Out, attacker: str, defender: str, entry: Placement) -> None:
    """The vehicle (a wreck too: "wreck or not" [L1680-L1682]) takes the infantry's square,
    the infantry pushed aside first, to the square its owner chooses when there is more than
    one (the battle waits, rulings 142); a vehicle removed from the battlefield takes nothing
    and the infantry stays."""
    a, d = out.state.units[attacker], out.state.units[defender]
    if a.placement is None or not (a.alive or a.wreck) or not d.alive or d.placement is None:
        return
    spots = push_squares(out.state, d, entry.squares)
    to = Step(entry.anchor.x, entry.anchor.y, entry.facing.name)
    if len(spots) > 1 and out.state.placing is None:
        offered = tuple(Step(s.x, s.y, None) for s in spots)
        out.emit(SquareAwaited(d.uid, d.side, PUSHED, offered, a.uid, to, TAKES))
        return
    if not spots:
        out.emit(StepsTaken(d.uid, 0, 0, str(d.status.face), d.status.hit_points, False, True))
    else:
        out.emit(ForcedMove(d.uid, Step(spots[0].x, spots[0].y, None), PUSHED))
    out.emit(ForcedMove(a.uid, to, TAKES))
