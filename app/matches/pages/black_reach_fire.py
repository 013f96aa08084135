"""What the Black Reach page shows of the heavier shooting actions beyond the battle's legal
actions, read from the battle's state with the engine's own rules (issue 16): the squares a
template covers on each quarter turn (for its preview on the board), a heavy vehicle's weapons
that may fire a Rafale, the units a Weirdboy may
share a power's cost with (Ork infantry of his side within 2 squares, for a cost of 2 or more
[L2874-L2889]) and the exact odds of his Perils of the Warp test when he does. The battle
still checks every command; these only fill the page's forms.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from typing import Any

from app.engine.black_reach.battle.offers import moving_guns
from app.engine.black_reach.battle.rules import WEIRDBOY_SHARE_RANGE, working_weapons
from app.engine.black_reach.board import UnitClass
from app.engine.black_reach.forces import Ability, PsykerKind
from app.engine.black_reach.los import distance
from app.engine.black_reach.tables import perils_odds
from app.engine.black_reach.templates import QUARTERS, turn_cell

__all__ = ["burst_weapons", "share_candidates", "shared_perils", "template_squares"]


def template_squares(cells: Sequence[Sequence[int]]) -> dict[str, list[list[int]]]:
    """A template's squares as offsets from its intercase, for each quarter turn (the
    battle's ``cells`` are drawn facing N)."""
    out: dict[str, list[list[int]]] = {}
    for q, facing in enumerate(QUARTERS):
        turned = {turn_cell(int(c[0]), int(c[1]), q) for c in cells if len(c) == 2}
        out[facing] = [list(xy) for xy in sorted(turned, key=lambda xy: (xy[1], xy[0]))]
    return out


def share_candidates(state: Any, psyker: str, cost: int) -> list[str]:
    """The units a Weirdboy paying ``cost`` may put one of its Suppressed markers on: his
    side's infantry standing within 2 squares of him (none for a cost below 2 or another
    psyker)."""
    u = getattr(state, "units", {}).get(psyker)
    if (
        u is None
        or u.counter.psyker is not PsykerKind.WEIRDBOY
        or cost < 2
        or u.placement is None
        or not u.alive
    ):
        return []
    out = []
    for other in state.on_board():
        if (
            other.uid == u.uid
            or other.side != u.side
            or other.embarked_in is not None
            or other.counter.unit_class is not UnitClass.INFANTRY
            or other.placement is None
        ):
            continue
        if distance(u.placement.squares, other.placement.squares) <= WEIRDBOY_SHARE_RANGE:
            out.append(other.uid)
    return out


def shared_perils(state: Any, psyker: str, cost: int) -> dict[str, Fraction]:
    """The Perils of the Warp odds of a Weirdboy who puts one of the cost's markers on
    another unit (one Suppressed marker fewer on him)."""
    u = state.units[psyker]
    return perils_odds(u.counter.psyker_level, u.suppressed + cost - 1, True)


def burst_weapons(state: Any, vehicle: str) -> frozenset[str]:
    """The working weapons of a heavy vehicle that may fire a Rafale (the weapon's own, or the
    vehicle's face's): their shots may split the weapon's modified CV (rulings 105)."""
    u = getattr(state, "units", {}).get(vehicle)
    if u is None:
        return frozenset()
    return frozenset(
        w.name
        for w in working_weapons(u)
        if w.ability(Ability.BURST) is not None or u.face.has(Ability.BURST)
    )


def move_guns(state: Any, vehicle: str) -> list[tuple[str, bool, bool]]:
    """A heavy vehicle's Tir en Mouvement weapons, each with its Double Tir and its Rafale
    (rulings 140), for the move's form to name them when one of them fires a Rafale; none when
    no weapon of the move has Rafale (the form's ``fire_at`` then says it all)."""
    u = getattr(state, "units", {}).get(vehicle)
    if u is None or not u.face.weapons:
        return []
    bursts = burst_weapons(state, vehicle)
    guns = [
        (w.name, w.has(Ability.DOUBLE_SHOT) or u.face.has(Ability.DOUBLE_SHOT), w.name in bursts)
        for w in moving_guns(u)
    ]
    return guns if any(burst for _name, _double, burst in guns) else []
