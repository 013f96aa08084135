"""Per-seat views of a Dynamics battle. A hidden order shows only its commitment to anybody
but its owner until it is revealed (rules/dynamics.md §6.4)."""

from __future__ import annotations

from app.engine.dynamics.state import DynamicsState, Slot
from app.engine.match.codec import JsonObject, to_json
from app.engine.match.events import Viewer
from app.engine.pen.battle.views import render as pen_render

__all__ = ["render", "render_slot"]


def render_slot(slot: Slot, viewer: Viewer, turn: int) -> JsonObject:
    out: JsonObject = {
        "unit": slot.unit,
        "seat": slot.seat,
        "turn": turn,
        "commitment": slot.commitment,
        "revealed": slot.revealed,
        "resolved": slot.resolved,
    }
    if slot.revealed or viewer == slot.seat:
        out["order"] = None if slot.order is None else str(slot.order)
        out["nonce"] = slot.nonce
    if slot.revealed:
        out["declaration"] = to_json(slot.declaration)
        out["step"] = slot.step
        out["postponed"] = slot.postponed
    return out


def render(state: DynamicsState, viewer: Viewer) -> JsonObject:
    view = pen_render(state.battle, viewer)
    pending = {
        unit: start - state.battle.units[unit].models
        for unit, start in state.pass_start.items()
        if start > state.battle.units[unit].models
    }
    view.update(
        rule_system="pen",
        turn_structure="dynamics",
        deploys_first=view.pop("first"),
        active_seat=state.to_act or None,
        dynamics={
            "stage": str(state.stage),
            "turn": state.turn,
            "step": state.step,
            "to_act": state.to_act,
            "advantage": state.advantage,
            "active_unit": state.active,
            "locked": list(state.locked),
            "bonus": state.bonus,
            "bonus_spent": state.bonus_spent,
            "orders": [render_slot(s, viewer, state.turn) for _, s in sorted(state.slots.items())],
            "pending_casualties": pending,
        },
    )
    return view
