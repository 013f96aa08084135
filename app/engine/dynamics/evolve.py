"""``evolve``: one event applied to a Dynamics state (pure; the replay of the log is the
state). PEN events go to the PEN battle's own ``evolve``; the common turn keeps its books."""

from __future__ import annotations

from dataclasses import replace

from app.engine.dynamics.events import (
    EXTREME_PHASES,
    AdvantageRolled,
    DynamicsCreated,
    ExtremeBegan,
    ExtremeEnded,
    ExtremePhaseDone,
    OrderChosen,
    OrderCommitted,
    OrderEnded,
    OrderPostponed,
    OrderRevealed,
    OrdersLocked,
    PassEnded,
    PlacingFirstChosen,
    PlacingRollOff,
    RetargetTested,
    StageEntered,
    StarterChosen,
    SweepRolled,
    TurnBegan,
    TurnEnded,
)
from app.engine.dynamics.state import DynamicsState, DynStage, Slot
from app.engine.match.events import Event
from app.engine.pen.battle.events import (
    BattleCreated,
    ChargeDeclared,
    CombatFought,
    Disembarked,
    Embarked,
    Rammed,
    ScoutMoved,
    TestTaken,
    UnitArrived,
    UnitMoved,
    UnitShot,
)
from app.engine.pen.battle.evolve import evolve as pen_evolve
from app.engine.pen.battle.state import Phase, Place, Stage

__all__ = ["evolve", "remaining", "to_act_after"]


def remaining(state: DynamicsState, seat: str) -> list[str]:
    """The units of ``seat`` still to act at the current step of the current stage."""
    if state.stage is DynStage.ARRIVALS:
        return sorted(u.id for u in state.battle.seat_units(seat) if u.place is Place.AVAILABLE)
    if state.stage is DynStage.REVEAL:
        assert state.setup is not None
        return sorted(
            s.unit
            for s in state.slots.values()
            if s.seat == seat and not s.revealed and state.setup.initiative(s.unit) == state.step
        )
    if state.stage is DynStage.RESOLVE and state.extreme:  # its units first [L273]
        return sorted(
            u
            for u in state.extreme
            if state.slots[u].seat == seat
            and not state.slots[u].resolved
            and u not in state.extreme_done
        )
    if state.stage is DynStage.RESOLVE:
        return sorted(
            s.unit
            for s in state.slots.values()
            if s.seat == seat and s.revealed and not s.resolved and s.step == state.step
        )
    return []


def to_act_after(state: DynamicsState, seat: str) -> str:
    """Alternation: the other player if they still have something to do, else this one
    [L152], [L209], [L227] (A8: a player left alone goes on)."""
    other = "B" if seat == "A" else "A"
    if remaining(state, other):
        return other
    return seat if remaining(state, seat) else ""


def _begin_turn(state: DynamicsState, turn: int) -> DynamicsState:
    battle = replace(state.battle, round=turn, turn=0, phase=Phase.START, active_unit=None)
    units = {
        u.id: replace(
            u,
            fought=False,
            charged=False,
            consolidated=False,
            results_this_turn=(),
            speed=None,
            moved=0,
            activated=False,
            shot=False,
            shot_at=frozenset(),
            regrouped=False,
            arrived_deep_strike=False,
            transferred=False,
            fired_models=0,
            carried_out=False,
            rammed=False,
            fire_from=None,
            models_before_fire=0,
            pinning_pending=False,
        )
        for u in battle.units.values()
    }
    return replace(
        state,
        battle=replace(battle, units=units),
        stage=DynStage.TURN_START,
        turn=turn,
        slots={},
        locked=(),
        bonus="",
        bonus_spent=False,
        step=0,
        advantage="",
        to_act="",
        active="",
        pass_start={},
        shot_losses={},
        morale_done=frozenset(),
        rolls={},
    )


def _end_turn(state: DynamicsState, turn: int) -> DynamicsState:
    """Shaken and stunned last until the end of the common turn after the one they were
    inflicted in (dynamics rulings D8)."""
    battle = state.battle
    effects = dict(state.effects)
    for unit, since in state.effects.items():
        if since < turn:
            battle = battle.with_unit(replace(battle.units[unit], shaken=False, stunned=False))
            del effects[unit]
    return replace(state, battle=battle, effects=effects, bonus="", bonus_spent=False)


def _slot_of_active(state: DynamicsState, unit: str) -> Slot | None:
    if state.stage is not DynStage.RESOLVE:
        return None
    return state.slots.get(unit)


def _pen(state: DynamicsState, event: Event) -> DynamicsState:
    before = state.battle
    battle = pen_evolve(before, event)
    state = replace(state, battle=battle)
    match event:
        case ScoutMoved(unit=unit):
            state = replace(state, scouted=state.scouted | {unit})
        case UnitArrived():
            battle = replace(battle, active_unit=None)
            state = replace(state, battle=battle)
            if state.stage is DynStage.ARRIVALS:
                state = replace(state, to_act=to_act_after(state, before.units[event.unit].seat))
        case UnitMoved(unit=unit):
            slot = _slot_of_active(state, unit)
            if slot is not None:
                state = replace(state.with_slot(replace(slot, moved=True)), active=unit)
        case Disembarked(unit=unit, moved=moved):
            slot = _slot_of_active(state, unit)
            if slot is not None:  # after its transport moved, it has made its move [L282]
                state = replace(
                    state.with_slot(replace(slot, moved=slot.moved or moved)), active=unit
                )
        case Rammed(unit=unit):
            slot = _slot_of_active(state, unit)
            if slot is not None:  # no shot nor charge after a ram (PEN [L1010-L1030])
                done = replace(slot, moved=True, shot=True, charged=True)
                state = replace(state.with_slot(done), active=unit)
        case Embarked(unit=unit):
            slot = _slot_of_active(state, unit)
            if slot is not None:  # aboard: its action is over for the turn [L277-L278]
                done = replace(slot, moved=True, shot=True, charged=True)
                state = replace(state.with_slot(done), active=unit)
        case UnitShot(unit=unit, target=target):
            lost = before.units[target].models - battle.units[target].models
            losses = dict(state.shot_losses)
            losses[target] = losses.get(target, 0) + max(lost, 0)
            state = replace(state, shot_losses=losses)
            vd = event.vehicle
            if vd is not None and (vd.shaken or vd.stunned):
                effects = dict(state.effects)
                effects[target] = state.turn
                state = replace(state, effects=effects)
            slot = _slot_of_active(state, unit)
            if slot is not None:
                state = replace(state.with_slot(replace(slot, shot=True)), active=unit)
        case ChargeDeclared(unit=unit):
            slot = _slot_of_active(state, unit)
            if slot is not None:
                state = replace(state.with_slot(replace(slot, charged=True)), active=unit)
        case CombatFought(unit=unit):
            slot = _slot_of_active(state, unit)
            if slot is not None:
                state = replace(state.with_slot(replace(slot, rounds=slot.rounds + 1)), active=unit)
        case TestTaken(unit=unit, test="morale"):
            state = replace(state, morale_done=state.morale_done | {unit})
    if battle.stage in (Stage.SCORING, Stage.ENDED):
        state = replace(state, stage=DynStage.OVER)
    return state


def evolve(state: DynamicsState, event: Event) -> DynamicsState:
    state = _evolve(state, event)
    unit = getattr(event, "unit", None)
    if isinstance(unit, str) and event.rolled_dice():
        rolls = dict(state.rolls)
        rolls[unit] = rolls.get(unit, 0) + 1
        state = replace(state, rolls=rolls)
    return state


def _evolve(state: DynamicsState, event: Event) -> DynamicsState:
    match event:
        case DynamicsCreated(setup=setup):
            battle = pen_evolve(state.battle, BattleCreated(setup.battle))
            return replace(state, setup=setup, battle=battle)
        case TurnBegan(turn=turn):
            return _begin_turn(state, turn)
        case StageEntered(stage=stage, step=step, to_act=to_act):
            state = replace(state, stage=stage, step=step, to_act=to_act, advantage="", active="")
            if stage is DynStage.RESOLVE:
                starts = {u.id: u.models for u in state.battle.units.values() if u.models > 0}
                state = replace(state, pass_start=starts, shot_losses={}, morale_done=frozenset())
            return state
        case AdvantageRolled(winner=winner, bonus_spent=spent):
            return replace(
                state, advantage=winner, to_act="", bonus_spent=state.bonus_spent or spent
            )
        case StarterChosen(seat=seat):
            if remaining(state, seat):
                return replace(state, to_act=seat)
            return replace(state, to_act="B" if seat == "A" else "A")
        case OrderCommitted(seat=seat, unit=unit, commitment=digest):
            slot = Slot(unit, seat, digest)
            return replace(state.with_slot(slot), placements=state.placements + 1)
        case OrderChosen(unit=unit, order=order, nonce=nonce):
            return state.with_slot(replace(state.slots[unit], order=order, nonce=nonce))
        case OrdersLocked(seat=seat):
            bonus = state.bonus or seat
            return replace(state, locked=(*state.locked, seat), bonus=bonus)
        case OrderRevealed(unit=unit, order=order, nonce=nonce, declaration=decl, step=step):
            slot = replace(
                state.slots[unit],
                order=order,
                nonce=nonce,
                revealed=True,
                declaration=decl,
                step=step,
            )
            state = state.with_slot(slot)
            return replace(state, to_act=to_act_after(state, slot.seat))
        case OrderPostponed(unit=unit):
            slot = state.slots[unit]
            state = state.with_slot(replace(slot, postponed=slot.postponed + 1))
            other = "B" if slot.seat == "A" else "A"
            return replace(state, active="", to_act=other if remaining(state, other) else slot.seat)
        case OrderEnded(unit=unit):
            slot = state.slots[unit]
            state = replace(state.with_slot(replace(slot, resolved=True)), active="")
            return replace(state, to_act=to_act_after(state, slot.seat))
        case RetargetTested(unit=unit, target=target, passed=passed):
            slot = state.slots[unit]
            decl = replace(slot.declaration, target=target) if passed else slot.declaration
            slot = replace(slot, retarget_tested=True, declaration=decl)
            return replace(state.with_slot(slot), active=unit)
        case ExtremeBegan(units=units):
            state = replace(
                state, extreme=units, extreme_phase=EXTREME_PHASES[0], extreme_done=frozenset()
            )
            mover = state.to_act
            other = "B" if mover == "A" else "A"
            return replace(state, to_act=mover if remaining(state, mover) else other)
        case ExtremePhaseDone(unit=unit):
            seat = state.slots[unit].seat
            state = replace(state, extreme_done=state.extreme_done | {unit}, active="")
            if not any(remaining(state, s) for s in ("A", "B")):
                phase = EXTREME_PHASES[EXTREME_PHASES.index(state.extreme_phase) + 1]
                state = replace(state, extreme_phase=phase, extreme_done=frozenset())
            return replace(state, to_act=to_act_after(state, seat))
        case ExtremeEnded(last=last):
            state = replace(state, extreme=(), extreme_phase="", extreme_done=frozenset())
            return replace(state, to_act=to_act_after(state, last))
        case PassEnded():
            return replace(state, pass_start={}, shot_losses={}, morale_done=frozenset())
        case TurnEnded(turn=turn):
            return _end_turn(state, turn)
        case SweepRolled(unit=unit, caught=True):
            me = replace(state.battle.units[unit], retreating=False)
            return replace(state, battle=state.battle.with_unit(me))
        case SweepRolled():
            return state
        case PlacingRollOff(stage=stage, winner=winner):
            return replace(state, placing_winner={**state.placing_winner, stage: winner})
        case PlacingFirstChosen(stage=stage, seat=seat):
            return replace(state, placing_first={**state.placing_first, stage: seat})
    return _pen(state, event)
