"""The legal actions of a seat in a Dynamics battle, at every step of the common turn.

Each entry is ``{"command": {...}}`` for a complete command, with ``"needs"`` listing the
fields the player states at the table (inches, weapon, distance...). A complete command is
listed only if the rule book accepts it now: it is tried on the current state (a refusal
leaves it out; running out of dice means it is legal and rolls). A command that needs a
table measure is tried with a neutral stand-in value (0 inches, the first weapon)."""

from __future__ import annotations

from app.engine.dynamics.commands import (
    COMMAND_CODEC,
    ChooseStarter,
    EndOrder,
    ExtremeMethod,
    LockOrders,
    PlaceOrder,
    Postpone,
    Retarget,
    RevealOrder,
    RollAdvantage,
    StartTurn,
)
from app.engine.dynamics.evolve import remaining
from app.engine.dynamics.orders import Order
from app.engine.dynamics.rules import decide
from app.engine.dynamics.state import DynamicsState, DynStage
from app.engine.errors import DiceExhausted
from app.engine.match.codec import JsonObject, Tagged
from app.engine.match.errors import Refusal
from app.engine.pen.battle.commands import (
    Arrive,
    Charge,
    ChooseFirst,
    Deploy,
    Disembark,
    Embark,
    Fight,
    Move,
    Ram,
    RamTarget,
    RollOff,
    ScoutMove,
    Shoot,
)
from app.engine.pen.battle.setup import SEATS
from app.engine.pen.battle.state import Speed
from app.engine.pen.battle.views import legal_actions as pen_legal_actions
from app.engine.roller import Roller

__all__ = ["legal_actions"]

_PROBE_NONCE_KEY = "legal-actions-probe"  # seals nothing: the probe is thrown away


def _legal(state: DynamicsState, command: Tagged, seat: str) -> bool:
    try:
        decide(state, command, seat, Roller.from_values(()), _PROBE_NONCE_KEY)
    except DiceExhausted:
        return True
    except Refusal:
        return False
    return True


def _entry(command: Tagged, needs: tuple[str, ...] = ()) -> JsonObject:
    out: JsonObject = {"command": COMMAND_CODEC.encode(command)}
    if needs:
        out["needs"] = list(needs)
    return out


def _advantage(state: DynamicsState, seat: str) -> list[JsonObject]:
    """The advantage test of a step, or the winner's choice of who starts."""
    if state.advantage and not state.to_act:
        if seat != state.advantage:
            return []
        return [_entry(ChooseStarter(s)) for s in SEATS]
    if state.to_act or state.stage not in (DynStage.REVEAL, DynStage.RESOLVE):
        return []
    return [
        _entry(RollAdvantage(spend))
        for spend in (False, True)
        if _legal(state, RollAdvantage(spend), seat)
    ]


def _reveal(state: DynamicsState, seat: str) -> list[JsonObject]:
    out: list[JsonObject] = []
    enemies = sorted(u.id for u in state.battle.units.values() if u.seat != seat and u.on_table)
    for unit in remaining(state, seat):
        order = state.slots[unit].order
        candidates: list[RevealOrder] = []
        if order in (Order.FIRE, Order.ASSAULT):
            candidates = [RevealOrder(unit, target=t) for t in enemies]
        elif order is Order.TACTICAL_MOVE:
            candidates = [RevealOrder(unit), *(RevealOrder(unit, target=t) for t in enemies)]
        elif order is Order.FORCED_MARCH:
            candidates = [RevealOrder(unit)]
        elif order is Order.DEEP_STRIKE:
            candidates = [
                RevealOrder(unit, mode="run"),
                *(RevealOrder(unit, target=t, mode="shoot") for t in enemies),
            ]
        out.extend(_entry(c) for c in candidates if _legal(state, c, seat))
    return out


def _resolve(state: DynamicsState, seat: str) -> list[JsonObject]:
    out: list[JsonObject] = []
    if not state.extreme and not state.active:  # every order of the pass not begun yet
        fresh = tuple(
            sorted(
                x.unit
                for x in state.slots.values()
                if x.step == state.step and x.revealed and not x.resolved
            )
        )
        extreme = ExtremeMethod(fresh)
        if _legal(state, extreme, seat):
            out.append(_entry(extreme))
    units = [state.active] if state.active else remaining(state, seat)
    transports = sorted(u.id for u in state.battle.seat_units(seat) if u.on_table and u.is_vehicle)
    for unit in units:
        slot = state.slots[unit]
        target = slot.declaration.target
        shock = slot.declaration.tank_shock_inches
        if shock is not None and _legal(state, Ram(unit, shock), seat):
            out.append(_entry(Ram(unit, shock), ("targets",)))  # the squads met on its path
        elif target and _legal(state, Ram(unit, 1, (RamTarget(target),)), seat):
            out.append(_entry(Ram(unit, 0, (RamTarget(target),)), ("inches",)))
        if _legal(state, Disembark(unit), seat):
            out.append(_entry(Disembark(unit)))
        for transport in transports:
            if transport != unit and _legal(state, Embark(unit, transport), seat):
                out.append(_entry(Embark(unit, transport)))
        for speed in Speed:
            move = Move(unit, speed)
            if _legal(state, move, seat):
                out.append(_entry(move, () if speed is Speed.STATIONARY else ("inches",)))
        for enemy in sorted(u.id for u in state.battle.units.values() if u.seat != seat):
            if enemy != target and _legal(state, Retarget(unit, enemy), seat):
                out.append(_entry(Retarget(unit, enemy)))
        if target:
            spec = state.battle.unit_spec(unit)
            for weapon in spec.weapons:
                shot = Shoot(unit, target, weapon.name, 0, half_range=True)
                if _legal(state, shot, seat):
                    entry = _entry(Shoot(unit, target, weapon.name, 0))
                    entry["needs"] = ["range_inches", "half_range"]
                    out.append(entry)
            charge = Charge(unit, target, 0)
            if _legal(state, charge, seat):
                out.append(_entry(charge, ("distance",)))
            fight = Fight(unit, target)
            if _legal(state, fight, seat):
                out.append(_entry(fight))
        for other in (Postpone(unit), EndOrder(unit)):
            if _legal(state, other, seat):
                out.append(_entry(other))
    return out


def _placing(state: DynamicsState, seat: str) -> list[JsonObject]:
    """The set-up's placements, which PEN's own page draws from its view and a client of the
    Dynamics turn (the generic page) reads from here: deploy a squad (or in a transport),
    a scout move."""
    out: list[JsonObject] = []
    if _legal(state, RollOff(), seat):  # who places infiltrators / scouts first [L142]
        out.append(_entry(RollOff()))
    out.extend(_entry(ChooseFirst(s)) for s in SEATS if _legal(state, ChooseFirst(s), seat))
    mine = state.battle.seat_units(seat)
    transports = sorted(u.id for u in mine if u.is_vehicle)
    for unit in sorted(u.id for u in mine):
        if _legal(state, Deploy(unit), seat):
            out.append(_entry(Deploy(unit)))
        for transport in transports:
            if transport != unit and _legal(state, Embark(unit, transport), seat):
                out.append(_entry(Embark(unit, transport)))
        if _legal(state, ScoutMove(unit, 1), seat):
            out.append(_entry(ScoutMove(unit, 0), ("inches",)))
    return out


def legal_actions(state: DynamicsState, seat: str) -> list[JsonObject]:
    """What ``seat`` may send now (dice commands included: they are legal, they roll)."""
    if seat not in SEATS or state.setup is None:
        return []
    stage = state.stage
    if stage is DynStage.SETUP or stage is DynStage.OVER:
        kinds = set(COMMAND_CODEC.kinds)
        out: list[JsonObject] = []
        for entry in pen_legal_actions(state.battle, seat):
            command = entry.get("command")
            if not isinstance(command, dict) or command.get("type") not in kinds:
                continue
            # a complete command is offered only if the rule book takes it now (PEN's list
            # offers e.g. the end of a deployment step to the player who deploys second)
            if "needs" in entry or _legal(state, COMMAND_CODEC.decode(command), seat):
                out.append(entry)
        if stage is DynStage.SETUP:
            out += [e for e in _placing(state, seat) if e not in out]
        return out
    if stage is DynStage.TURN_START:
        return [_entry(StartTurn())]
    if stage is DynStage.ARRIVALS:
        if not state.to_act:
            return [_entry(ChooseStarter(s)) for s in SEATS] if seat == state.advantage else []
        if state.to_act != seat:
            return []
        return [
            _entry(Arrive(unit), ("speed", "inches", "edge"))
            for unit in remaining(state, seat)
            if _legal(state, Arrive(unit), seat)
        ]
    if stage is DynStage.PLACEMENT:
        if seat in state.locked:
            return []
        out = [
            _entry(PlaceOrder(unit, order))
            for unit in state.needs_order(seat)
            for order in Order
            if _legal(state, PlaceOrder(unit, order), seat)
        ]
        if _legal(state, LockOrders(), seat):
            out.append(_entry(LockOrders()))
        return out
    actions = _advantage(state, seat)
    if state.to_act != seat:
        return actions
    if stage is DynStage.REVEAL:
        return actions + _reveal(state, seat)
    return actions + _resolve(state, seat)
