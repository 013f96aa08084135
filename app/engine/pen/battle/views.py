"""Per-seat views and legal actions of a PEN battle (nothing is secret in PEN: the views of
the two seats differ only in what each may do)."""

from __future__ import annotations

from app.engine.match.codec import JsonObject
from app.engine.match.events import Viewer
from app.engine.pen.battle.commands import (
    COMMAND_CODEC,
    ChooseFirst,
    Command,
    DeclareReserve,
    EndActivation,
    EndPhase,
    EndStep,
    Fight,
    GoToGround,
    ReportControl,
    RollOff,
    StartTurn,
)
from app.engine.pen.battle.rules import objectives
from app.engine.pen.battle.setup import SEATS
from app.engine.pen.battle.state import BattleState, Phase, Place, ReserveMode, Stage

__all__ = ["legal_actions", "render"]


def render(state: BattleState, viewer: Viewer) -> JsonObject:
    units = [
        {
            "id": u.id,
            "seat": u.seat,
            "place": str(u.place),
            "models": u.models,
            "models_start": u.models_start,
            "wounds_taken": u.wounds_taken,
            "hull_points": u.hull_points,
            "hull_points_lost": u.hp_lost,
            "reserve": None if u.reserve is None else str(u.reserve),
            "speed": None if u.speed is None else str(u.speed),
            "moved": u.moved,
            "tokens": sorted(
                t
                for t, on in (
                    ("retreating", u.retreating),
                    ("gone_to_ground", state.gone_to_ground(u)),
                    ("locked", bool(u.locked)),
                    ("shaken", u.shaken),
                    ("stunned", u.stunned),
                    ("immobilised", u.immobilised),
                )
                if on
            ),
            "locked_with": sorted(u.locked),
        }
        for u in state.units.values()
    ]
    return {
        "rule_system": "pen",
        "viewer": viewer,
        "stage": str(state.stage),
        "round": state.round,
        "active_seat": state.active_seat,
        "phase": None if state.phase is None else str(state.phase),
        "night": state.night,
        "first": state.first,
        "active_unit": state.active_unit,
        "units": units,
        "control": dict(state.control),
        "result": dict(state.result),
        "winner": state.winner,
    }


def _cmd(command: Command) -> JsonObject:
    return {"command": COMMAND_CODEC.encode(command)}


def legal_actions(state: BattleState, seat: str) -> list[JsonObject]:
    """Complete commands this seat may send now (commands that need a distance stated on the
    table are listed with ``needs``)."""
    if seat not in SEATS:
        return []
    out: list[JsonObject] = []
    stage = state.stage
    mine = state.seat_units(seat)
    if stage is Stage.RESERVES and seat not in state.ready:
        for u in mine:
            if u.place is Place.UNDEPLOYED:
                out.append(_cmd(DeclareReserve(u.id, ReserveMode.STANDARD)))
        out.append(_cmd(EndStep()))
    elif stage is Stage.ROLL_OFF:
        out.append(_cmd(RollOff()))
    elif stage is Stage.CHOOSE and state.roll_off_winner == seat:
        out.extend(_cmd(ChooseFirst(s)) for s in SEATS)
    elif stage in (Stage.DEPLOY, Stage.INFILTRATE, Stage.SCOUT) and seat not in state.ready:
        out.append(_cmd(EndStep()))
    elif stage is Stage.SCORING:
        out.extend(
            _cmd(ReportControl(o, s))
            for o in objectives(state)
            if o not in state.control
            for s in ("", *SEATS)
        )
    elif stage is Stage.BATTLE:
        if state.active_seat != seat:
            if state.phase is Phase.MOVEMENT:
                out.extend(
                    _cmd(GoToGround(u.id))
                    for u in mine
                    if u.on_table
                    and not u.is_vehicle
                    and not u.locked
                    and not u.retreating
                    and not state.gone_to_ground(u)
                )
            return out
        if state.phase is Phase.START:
            out.append(_cmd(StartTurn()))
            return out
        if state.phase is Phase.MOVEMENT:
            if state.active_unit is not None:
                out.append(_cmd(EndActivation(state.active_unit)))
                return out
            out.extend(
                {"command": {"type": "arrive", "unit": u.id}, "needs": ["inches"]}
                for u in mine
                if u.place is Place.AVAILABLE
            )
            out.extend(
                {"command": {"type": "move", "unit": u.id}, "needs": ["speed", "inches"]}
                for u in mine
                if u.on_table and not u.activated
            )
        if state.phase is Phase.ASSAULT:
            for u in mine:
                for enemy in sorted(u.locked):
                    if not u.fought and not state.units[enemy].fought:
                        out.append(_cmd(Fight(u.id, enemy)))
        out.append(_cmd(EndPhase()))
    return out
