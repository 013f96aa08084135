"""Da Jump in the match [L2933-L2942] (rulings 132): the Weirdboy and one allied infantry unit
in his zone of control leave the battlefield; in the next turn's Reserve phase, in their side's
move slot, each comes back with a Movement Action whose first square is on a board edge (the
same edge for both, never in the enemy deployment zone). One not back when its side ends that
Reserve phase is destroyed (a move that cannot be made destroys the unit, note §3.5).
"""

from __future__ import annotations

from app.engine.black_reach.battle.state import BattleState, UnitState
from app.engine.black_reach.board import Board, Square, UnitClass
from app.engine.black_reach.movement import zone_of_control
from app.engine.match.errors import Refusal, RefusalKind

__all__ = ["edges_of", "jump_partner", "landing_problem", "waiting_jumpers"]


def _refuse(code: str, message: str, kind: RefusalKind = RefusalKind.RULES) -> Refusal:
    return Refusal(code, message, kind=kind)


def edges_of(board: Board, square: Square) -> frozenset[str]:
    """The board edges (N, E, S, W of the battlefield's bounding box) a square lies on."""
    xs = [s.x for s in board.squares]
    ys = [s.y for s in board.squares]
    out = set()
    if square.y == min(ys):
        out.add("N")
    if square.y == max(ys):
        out.add("S")
    if square.x == min(xs):
        out.add("W")
    if square.x == max(xs):
        out.add("E")
    return frozenset(out) if square in board.squares else frozenset()


def jump_partner(state: BattleState, psyker: UnitState, target_id: str | None) -> UnitState | None:
    """Check Da Jump before any die: the Weirdboy on the battlefield, and the unit he takes
    (none named: he jumps alone) an allied infantry unit on the battlefield in his zone of
    control [L2935-L2936]."""
    if psyker.placement is None:
        raise _refuse("aboard", "Da Jump is manifested from the battlefield")
    if target_id is None:
        return None
    target = state.units.get(target_id)
    if target is None:
        raise _refuse("unknown_unit", f"there is no unit {target_id!r}", RefusalKind.INPUT)
    if (
        target.uid == psyker.uid
        or target.side != psyker.side
        or not target.alive
        or target.placement is None
        or target.counter.unit_class is not UnitClass.INFANTRY
    ):
        raise _refuse("bad_jump_target", "Da Jump takes an allied infantry unit along [L2935]")
    zone = zone_of_control(state.board, psyker.board_unit())
    if not target.placement.squares & zone:
        raise _refuse("not_in_zone", f"{target.uid} is not in the Weirdboy's zone of control")
    return target


def waiting_jumpers(state: BattleState, side: str) -> list[str]:
    """The side's units off the battlefield by Da Jump that come back this turn."""
    turn = state.turn.turn if state.turn is not None else 0
    return sorted(
        uid
        for uid, (_psyker, left) in state.jumped.items()
        if state.units[uid].side == side and left < turn and state.units[uid].alive
    )


def landing_problem(state: BattleState, u: UnitState, first: Square) -> frozenset[str]:
    """Where a jumper comes back: its first square on a board edge, not in the enemy
    deployment zone, by the edge its partner took if it is back already [L2939-L2942]; the
    edges it may count as."""
    assert state.scenario is not None
    edges = edges_of(state.board, first)
    if not edges:
        raise _refuse("not_on_edge", "a unit back from Da Jump enters on a board edge [L2940]")
    enemy = [s for s in state.scenario.sides if s.id != u.side]
    if any(first in s.deployment for s in enemy):
        raise _refuse(
            "enemy_zone", "a unit back from Da Jump never enters in the enemy deployment zone"
        )
    psyker, _left = state.jumped[u.uid]
    taken = state.jump_edges.get(psyker)
    if taken is not None:
        shared = edges & frozenset(taken)
        if not shared:
            raise _refuse(
                "other_edge",
                f"both units of Da Jump enter by the same edge: {', '.join(sorted(taken))}",
            )
        return shared
    return edges
