"""What the Black Reach page offers beyond the battle's legal actions, read from the battle's
state with the engine's own rules: the units that may support an assault (and the exact odds
for each number of supporters), the transports an infantry unit may get into at the end of its
move (and the squares next to each), and whether a unit may change state (Changement d'état)
during its move. The battle still checks every command; these only fill the page's forms.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from app.engine.black_reach.battle.rules import MAX_SUPPORT, assault_request
from app.engine.black_reach.board import Square, UnitClass
from app.engine.black_reach.forces import Ability, FaceKind
from app.engine.black_reach.movement import can_embark, zone_of_control
from app.engine.black_reach.odds import outcome_odds

__all__ = ["UnitExtras", "extras_of", "support_odds", "supporters"]

_STATES = (FaceKind.ACTIVE, FaceKind.INACTIVE)


@dataclass(frozen=True, slots=True)
class UnitExtras:
    """One unit's options on the page: ``transports`` (id -> the squares a move may end on
    to get in), ``flips`` (Changement d'état), ``aboard`` (the transport it is in),
    ``demolisher`` (Démolisseur: a move may name the structure it damages at its end)."""

    transports: dict[str, frozenset[tuple[int, int]]] = field(default_factory=dict)
    flips: bool = False
    aboard: str | None = None
    demolisher: bool = False


def _transports(state: Any, side: str) -> dict[str, frozenset[tuple[int, int]]]:
    """The side's transports standing on the battlefield, with the squares next to them."""
    out: dict[str, frozenset[tuple[int, int]]] = {}
    for t in state.on_board():
        if t.side != side or t.wreck or not t.face.has(Ability.TRANSPORT):
            continue
        mover = state.mover(t.uid)
        near = {n for sq in t.placement.squares for n in sq.neighbours()}
        out[t.uid] = frozenset(
            (sq.x, sq.y)
            for sq in near
            if sq not in t.placement.squares
            and sq in state.board.squares
            and can_embark(mover, Square(sq.x, sq.y))
        )
    return out


def extras_of(state: Any, side: str | None) -> dict[str, UnitExtras]:
    """The extras of ``side``'s units present on the battlefield or aboard (none for a
    spectator or before the set-up)."""
    if side is None or getattr(state, "scenario", None) is None:
        return {}
    transports = _transports(state, side)
    out: dict[str, UnitExtras] = {}
    for u in state.present_units():
        if u.side != side:
            continue
        infantry = u.counter.unit_class is UnitClass.INFANTRY
        flips = u.face.has(Ability.STATE_CHANGE) and all(
            u.counter.face(k) is not None for k in _STATES
        )
        out[u.uid] = UnitExtras(
            transports={k: v for k, v in transports.items() if k != u.uid}
            if infantry and u.embarked_in is None
            else {},
            flips=flips,
            aboard=u.embarked_in,
            demolisher=u.face.has(Ability.DEMOLISHER),
        )
    return out


def supporters(state: Any, attacker: str, target: str) -> list[str]:
    """The attacker's side's units that may support its assault on ``target``: with Assaut,
    not the attacker, not acted nor activated this turn, not Suppressed, standing in the
    defender's zone of control [L1556-L1571]."""
    u, t = state.units.get(attacker), state.units.get(target)
    if u is None or t is None or t.placement is None:
        return []
    zone = zone_of_control(state.board, t.board_unit())
    out = []
    for s in state.on_board():
        if (
            s.side != u.side
            or s.uid == u.uid
            or s.wreck
            or not s.face.has(Ability.ASSAULT)
            or s.uid in state.acted
            or s.uid in state.activated
            or s.suppressed
            or not (s.placement.squares & zone)
        ):
            continue
        out.append(s.uid)
    return out[:MAX_SUPPORT]


def support_odds(
    state: Any, attacker: str, target: str, most: int
) -> list[tuple[int, dict[str, Fraction]]]:
    """The exact odds of the assault with 1 to ``most`` supporters (each adds +1)."""
    u, t = state.units.get(attacker), state.units.get(target)
    if u is None or t is None or t.placement is None:
        return []
    return [(n, outcome_odds(assault_request(state, u, t, n))) for n in range(1, most + 1)]
