"""Assaults and transports (rulings 121) [L1507-L1510], [L2034-L2038].

A unit aboard a transport may assault: along a path, it gets out onto a free square next to
the transport (its move's first square) and assaults from where the path ends, as any unit;
with no path, the assault starts from the transport's own square next to the defender (the
rulebook's "a square holding an allied Transport"), the unit entering the defender's square
with its move's first square. Such an attacker that does not take the defender's square
stays aboard. A beaten infantry defender with no open square to retreat to gets into an
allied transport standing on one of its three retreat squares, when there is room.
"""

from __future__ import annotations

from app.engine.black_reach.battle.cards import MOVE_BONUS, card_bonus
from app.engine.black_reach.battle.state import BattleState, UnitState
from app.engine.black_reach.movement import Mover, Placement, movement_budget

__all__ = ["aboard_start"]


def aboard_start(state: BattleState, u: UnitState, target: UnitState) -> Placement | None:
    """Where an embarked unit's assault with no path starts: the first square (reading order)
    of its transport next to the defender, when the unit may move 1 square; ``None``
    otherwise."""
    if u.embarked_in is None or target.placement is None:
        return None
    transport = state.units[u.embarked_in]
    if transport.placement is None:
        return None
    mover = Mover(state.mover(u.uid), u.face.mv, card_bonus(state, u.uid, MOVE_BONUS))
    if movement_budget(mover) < 1:
        return None
    near = {n for sq in target.placement.squares for n in sq.neighbours()}
    for sq in sorted(transport.placement.squares, key=lambda q: (q.y, q.x)):
        if sq in near:
            return Placement(sq)
    return None
