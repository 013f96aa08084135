"""Lance-Flammes (rulings 100): where a flamer's template lies and whom it reaches
[L1214-L1258].

The template's narrow end goes on the centre of the shooter's square, pointing one way: the
template's ``cells`` are read as offsets from the shooter's square (facing N, turned by
quarter turns about that square's centre). A covered square is **reached** when the line
from the shooter's square to it passes no blocking obstacle, no elevation line it does not
touch (across one the flame reaches only the squares just behind it) and no square holding a
vehicle (the flame stops once it passes such a square's centre: the vehicle's own square is
reached); the reducing obstacles of that line come off the attack on the unit standing there
(walls next to the shooter or the target ignored, as any line [L866-L879]).
"""

from __future__ import annotations

from dataclasses import dataclass

from app.engine.black_reach.battle.powers import silenced
from app.engine.black_reach.battle.state import BattleState, UnitState
from app.engine.black_reach.board import Square
from app.engine.black_reach.forces import Ability, AbilityRef, FaceKind, Role
from app.engine.black_reach.los import Arc, Blocker, in_arc, line_of_sight
from app.engine.black_reach.templates import QUARTERS, Template, template_name, turn_direction
from app.engine.match.errors import Refusal, RefusalKind

__all__ = ["FlamePlan", "flame_squares", "plan_flame"]


@dataclass(frozen=True)
class FlamePlan:
    template: Template
    origin: Square
    squares: frozenset[Square]  # covered, on the battlefield, the shooter's squares left out
    reached: frozenset[Square]
    targets: tuple[tuple[str, int], ...]  # (unit, obstacle penalty), in reading order


def flame_squares(template: Template, origin: Square, facing: str) -> frozenset[Square]:
    """The squares of a flamer's template pointing ``facing`` from ``origin``."""
    q = QUARTERS.index(facing)
    return frozenset(
        Square(origin.x + dx, origin.y + dy)
        for dx, dy in (turn_direction(x, y, q) for x, y in template.cells)
    )


def _refuse(code: str, message: str, kind: RefusalKind = RefusalKind.RULES) -> Refusal:
    return Refusal(code, message, kind=kind)


def plan_flame(
    state: BattleState,
    u: UnitState,
    facing: str,
    origin: Square | None = None,
    kombi: AbilityRef | None = None,
) -> FlamePlan:
    """Check a flamer's Alternative Shooting Action and find the units it reaches: every unit
    but the shooter (and its transport) with a reached square, friend or foe, each with the
    smallest obstacle penalty of its reached squares. A unit aboard a transport fires from
    ``origin``, one of the transport's squares [L2040-L2042] (rulings 111). ``kombi``: the
    Lance-Flammes a Kombi Weapon marker gives, not the face's (rulings 150)."""
    ref = kombi if kombi is not None else u.face.ability(Ability.FLAMER)
    if ref is None:
        raise _refuse("no_flamer", f"{u.uid} has no Lance-Flammes")
    template = state.catalogue.templates.get(template_name(ref.param))
    if template is None:
        raise _refuse("no_template", f"{u.uid}'s template {ref.param!r} is not in the data")
    if facing not in QUARTERS:
        raise _refuse("bad_facing", "a template faces N, E, S or W", RefusalKind.INPUT)
    if silenced(state, u.uid):
        raise _refuse("objuration", f"{u.uid} cannot shoot: Objuration Mechanicum [L3031-L3036]")
    carrier = u.embarked_in or ""
    if u.embarked_in is not None:
        if u.counter.role is Role.HEAVY_WEAPON and not u.face.has(Ability.SHOOT_ON_MOVE):
            raise _refuse(
                "heavy_weapon_aboard",
                "heavy-weapon infantry shoots from a transport only with Tir en Mouvement "
                "[L2043-L2046]",
            )
        placement = state.units[u.embarked_in].placement
        assert placement is not None
        if origin is None and len(placement.squares) == 1:
            origin = placement.anchor
        if origin is None or origin not in placement.squares:
            raise _refuse(
                "flame_square",
                "name the square of the transport the flame starts from (x, y) [L2040-L2042]",
                RefusalKind.INPUT,
            )
    else:
        placement = u.placement
        assert placement is not None
        if origin is not None and origin != placement.anchor:
            raise _refuse(
                "flame_square",
                "only a unit aboard a transport names the square its flame starts from",
                RefusalKind.INPUT,
            )
        origin = placement.anchor
    board = state.board
    squares = (flame_squares(template, origin, facing) & board.squares) - placement.squares
    arc_ref = u.face.ability(Ability.LIMITED_ARC)
    if arc_ref is not None:  # the template points inside the arc [L1226-L1230]
        arc = Arc.NARROW if str(arc_ref.param) == "90" else Arc.HALF
        if not any(in_arc(origin, placement.facing, sq, arc) for sq in squares):
            raise _refuse("out_of_arc", f"the flame points outside the {arc.value}° arc")
    standing = [
        t
        for t in state.on_board()
        if t.placement is not None
        and t.uid != u.uid
        and t.uid != carrier
        and t.status.face is not FaceKind.AMBUSH  # templates pass it by [L1787]
    ]
    penalty: dict[Square, int] = {}
    for sq in squares:
        blockers = [
            Blocker(t.placement.squares, t.counter.unit_class)
            for t in standing
            if t.placement is not None
            and t.counter.unit_class.is_vehicle
            and sq not in t.placement.squares
        ]
        los = line_of_sight(
            board,
            origin,
            sq,
            shooter_class=u.counter.unit_class,
            target_class=u.counter.unit_class,
            blockers=blockers,
        )
        if los.can_shoot:
            penalty[sq] = los.penalty
    targets = []
    for t in sorted(standing, key=lambda t: (t.placement.anchor.y, t.placement.anchor.x, t.uid)):  # type: ignore[union-attr]
        assert t.placement is not None
        hit = [penalty[sq] for sq in t.placement.squares if sq in penalty]
        if hit:
            targets.append((t.uid, min(hit)))
    return FlamePlan(template, origin, squares, frozenset(penalty), tuple(targets))
