"""Objective control from what the players report, and mission scoring.

Level of Control = the sum of the OC of a player's models within range of the marker (a
Battle-shocked unit's models have OC 0); strictly greater controls, a tie (0-0 included) is
contested; checked at the end of every phase ([L4589-4609], [L796-797], RULINGS "battle").
"""

from __future__ import annotations

from app.engine.match.missions import ScoringRule
from app.engine.wh40k10e.battle.setup import Seat
from app.engine.wh40k10e.battle.state import BattleState

__all__ = ["control", "control_levels", "scoring_for"]


def control_levels(state: BattleState) -> dict[str, dict[Seat, int]]:
    """Each marker's Level of Control per player, from the reported presence."""
    levels: dict[str, dict[Seat, int]] = {}
    for marker in state.markers:
        per_seat = {Seat.A: 0, Seat.B: 0}
        for seat, entries in state.presence.get(marker, {}).items():
            # an Attached unit is one unit [L3211-3255]: reported whole (no model count),
            # every part counts, whichever part the report names
            counted: dict[str, int | None] = {p.unit: p.models for p in entries}
            for p in entries:
                if p.models is None:
                    for part in state.group(p.unit):
                        counted.setdefault(part, None)
            for part, reported in counted.items():
                u = state.units[part]
                if u.owner is not seat or not state.on_battlefield(part) or u.battle_shocked:
                    continue
                alive = u.models_alive
                models = alive if reported is None else min(reported, alive)
                per_seat[seat] += models * state.specs[part].oc
        levels[marker] = per_seat
    return levels


def control(state: BattleState) -> dict[str, Seat | None]:
    """Who controls each marker now (``None``: contested)."""
    out: dict[str, Seat | None] = {}
    for marker, lv in control_levels(state).items():
        a, b = lv[Seat.A], lv[Seat.B]
        out[marker] = Seat.A if a > b else Seat.B if b > a else None
    return out


def scoring_for(state: BattleState, rule: ScoringRule, seat: Seat) -> tuple[int, tuple[str, ...]]:
    """VP ``seat`` scores under ``rule`` now, and the markers it controls."""
    markers = tuple(sorted(m for m, ms in state.markers.items() if ms.controller is seat))
    vp = len(markers) * rule.per_marker
    if rule.max_per_window is not None:
        vp = min(vp, rule.max_per_window)
    return vp, markers
