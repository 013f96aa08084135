"""What the legal actions offer beyond each command's own entry (issue 16): the targets of a
Tir en Mouvement with a move (rulings 136) and the squares a flamer aboard a transport of
several squares fires from (rulings 137).

The engine already plays both (``move`` with ``fire_at``/``fire_after``, rulings 109 and the
Tir en Mouvement of the shot pipeline; ``flame`` with ``x``/``y``, rulings 111); these only
tell a page what it may ask, each checked again with the command before any die.
"""

from __future__ import annotations

from app.engine.black_reach.battle.flamer import FlamePlan, plan_flame
from app.engine.black_reach.battle.rules import working_weapons
from app.engine.black_reach.battle.state import BattleState, UnitState
from app.engine.black_reach.board import Square, UnitClass
from app.engine.black_reach.forces import Ability, AbilityRef, Weapon
from app.engine.black_reach.templates import QUARTERS
from app.engine.match.errors import Refusal

__all__ = ["flame_origins", "moving_fire_targets", "moving_guns"]


def moving_guns(u: UnitState) -> list[Weapon]:
    """A heavy vehicle's working weapons that fire during its move: those with Tir en
    Mouvement, or all of them when the face has it [L572-L577]."""
    return [
        w
        for w in working_weapons(u)
        if w.has(Ability.SHOOT_ON_MOVE) or u.face.has(Ability.SHOOT_ON_MOVE)
    ]


def moving_fire_targets(state: BattleState, u: UnitState) -> list[str]:
    """The enemy units a Tir en Mouvement of ``u`` may aim at during its move (rulings 136):
    none without the ability (on the face, or on a working weapon of a heavy vehicle
    [L572-L577]); else every enemy unit on the battlefield (no wreck) that the unit, or one
    of those weapons, has a CV against (a unit aboard a transport too: it fires once out).
    Whether it can be shot is known only where the shot is fired (sight, arc, range after
    ``fire_after`` steps): the move checks it before any die and refuses it otherwise."""
    if u.face.weapons:
        guns = moving_guns(u)

        def armed(c: UnitClass) -> bool:
            return any(w.cv.get(c) is not None for w in guns)

        if not guns:
            return []
    else:
        if not u.face.has(Ability.SHOOT_ON_MOVE):
            return []

        def armed(c: UnitClass) -> bool:
            return u.face.cv_against(c) is not None

    return sorted(
        t.uid
        for t in state.on_board()
        if t.side != u.side and not t.wreck and armed(t.counter.unit_class)
    )


def flame_origins(
    state: BattleState, u: UnitState, kombi: AbilityRef | None = None
) -> list[tuple[Square | None, str, FlamePlan]]:
    """Each way a flamer may be laid now, as ``(origin, facing, plan)``: from the unit's
    square (``origin`` ``None``: the command names none), or, aboard a transport of several
    squares, from each of its squares (rulings 111, 137), in reading order, each direction
    N, E, S, W; those the rules refuse are left out. ``kombi``: a Kombi Weapon marker's
    Lance-Flammes instead of the face's (rulings 150)."""
    origins: list[Square | None] = [None]
    if u.embarked_in is not None:
        carrier = state.units[u.embarked_in].placement
        if carrier is not None and len(carrier.squares) > 1:
            origins = [*sorted(carrier.squares, key=lambda s: (s.y, s.x))]
    out: list[tuple[Square | None, str, FlamePlan]] = []
    for origin in origins:
        for facing in QUARTERS:
            try:
                plan = plan_flame(state, u, facing, origin, kombi)
            except Refusal:
                continue
            out.append((origin, facing, plan))
    return out
