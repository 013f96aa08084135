"""``evolve``: one event applied to the state (pure; replay of the log is the state)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

from app.engine.match.events import Event
from app.engine.pen.battle.events import (
    AccidentTested,
    ActivationEnded,
    ActivationPassed,
    AlertDeclared,
    AlertEnded,
    BattleCreated,
    BattleEnded,
    ChallengeAnswered,
    ChallengeIssued,
    ChargeDeclared,
    CombatFought,
    CombatResolved,
    Consolidated,
    ControlReported,
    DawnRolled,
    Disembarked,
    Disengaged,
    Embarked,
    FirstChosen,
    GameLengthRolled,
    HitAndRunDeclared,
    OutOfControlEnded,
    PassengersHit,
    PhaseStarted,
    PoisonTested,
    Rammed,
    Regenerated,
    ReserveDeclared,
    ReservesRolled,
    ResultConfirmed,
    Retreated,
    RollOffMade,
    RoundStarted,
    ScoutMoved,
    SquadChosen,
    StepEnded,
    Stopped,
    TestTaken,
    TurnStarted,
    UnitArrived,
    UnitDeployed,
    UnitMoved,
    UnitShot,
    VehicleDamage,
    WentToGround,
)
from app.engine.pen.battle.setup import other, profile_of
from app.engine.pen.battle.state import BattleState, Phase, Place, Speed, Stage, UnitState
from app.engine.pen.names import Rule

__all__ = ["evolve", "next_setup_stage"]


def _new_unit(seat: str, spec_id: str, state: BattleState) -> UnitState:
    spec = state.unit_spec(spec_id)
    profile = profile_of(spec)
    rules = frozenset(str(r.rule) for r in profile.rules)
    if spec.is_vehicle:
        hp = getattr(profile, "hull_points", None)
        return UnitState(
            spec.id,
            seat,
            spec.models,
            spec.models,
            1,
            rules=rules,
            troops=spec.troops,
            hull_points=hp if hp is not None else 0,
        )
    wounds = getattr(profile, "wounds", 1) or 1
    return UnitState(
        spec.id, seat, spec.models, spec.models, wounds, rules=rules, troops=spec.troops
    )


def next_setup_stage(state: BattleState) -> Stage:
    """The set-up step after deployment / infiltration: skipped when nobody needs it."""
    order = (Stage.INFILTRATE, Stage.SCOUT, Stage.BATTLE)
    start = order.index(state.stage) + 1 if state.stage in order else 0
    for stage in order[start:]:
        if stage is Stage.INFILTRATE and any(
            u.place is Place.UNDEPLOYED and str(Rule.INFILTRATE) in u.rules
            for u in state.units.values()
        ):
            return stage
        if stage is Stage.SCOUT and any(
            u.place is Place.TABLE and str(Rule.SCOUT) in u.rules for u in state.units.values()
        ):
            return stage
    return Stage.BATTLE


def _enter(state: BattleState, stage: Stage) -> BattleState:
    state = replace(state, stage=stage, ready=frozenset())
    if stage is Stage.BATTLE:
        state = replace(state, round=1, turn=0, phase=Phase.START)
    return state


def _unlock(state: BattleState, a: str, b: str) -> BattleState:
    ua, ub = state.units[a], state.units[b]
    state = state.with_unit(replace(ua, locked=ua.locked - {b}))
    return state.with_unit(replace(ub, locked=ub.locked - {a}))


def _rolled(state: BattleState, unit: str) -> BattleState:
    me = state.units[unit]
    return state.with_unit(replace(me, rolls=me.rolls + 1))


def _damaged(victim: UnitState, vd: VehicleDamage) -> UnitState:
    return replace(
        victim,
        hp_lost=vd.hp_lost,
        damage_bonus=vd.damage_bonus,
        weapons_damaged=vd.weapons_damaged,
        reduced_mobility=vd.reduced_mobility,
        immobilised=vd.immobilised,
        shaken=victim.shaken or vd.shaken,
        stunned=victim.stunned or vd.stunned,
        results_this_turn=victim.results_this_turn + vd.results,
        # immobilised vehicles do not go out of control [L1008]
        out_of_control=(victim.out_of_control or vd.out_of_control) and not vd.immobilised,
    )


def _set_models(state: BattleState, unit: UnitState, models: int, taken: int) -> BattleState:
    if models <= 0:
        for enemy in unit.locked:
            other = state.units[enemy]
            state = state.with_unit(replace(other, locked=other.locked - {unit.id}))
        unit = replace(
            unit,
            models=0,
            wounds_taken=0,
            place=Place.DESTROYED,
            locked=frozenset(),
            poisoned=False,
        )
        return state.with_unit(unit)
    poisoned = unit.poisoned and taken > 0 and models == unit.models
    return state.with_unit(replace(unit, models=models, wounds_taken=taken, poisoned=poisoned))


def _combat_gaps(
    state: BattleState, group: tuple[str, ...], beaten: tuple[str, ...], gap: int
) -> BattleState:
    """After a combat: the squads of the side that did not win (both sides on a draw) still
    locked in it keep the casualty difference, for a retreat they may choose [L1244],
    [L1254]; every other squad of the combat has none."""
    for unit in group:
        me = state.units[unit]
        keeps = unit in beaten and me.alive and bool(me.locked) and not me.retreating
        state = state.with_unit(replace(me, combat_gap=gap if keeps else None))
    return state


def _no_ws(state: BattleState, unit: UnitState) -> bool:
    raw = state.unit_spec(unit.id).profile
    return not isinstance(raw, Mapping) or raw.get("ws") is None


def _next_deployer(state: BattleState, seat: str) -> str:
    """Alternation mode: squads deploy one at a time, in turn [L838]; a player with nothing
    left to deploy lets the other deploy the rest."""
    them = other(seat)
    left = [
        u
        for u in state.seat_units(them)
        if u.place is Place.UNDEPLOYED and str(Rule.INFILTRATE) not in u.rules
    ]
    return them if left and them not in state.ready else seat


def _fresh(unit: UnitState) -> UnitState:
    """A squad at the start of its turn (or of a round in the alternation mode)."""
    return replace(
        unit,
        fought=False,
        charged=False,
        consolidated=False,
        combat_gap=None,
        results_this_turn=(),
        rolls=0,
        transferred=False,
        fired_models=0,
        carried_out=False,
        rammed=False,
        speed=None,
        moved=0,
        activated=False,
        shot=False,
        shot_at=frozenset(),
        regrouped=False,
        arrived_deep_strike=False,
        challenged_by=None,
        duel=None,
        refused_duel=False,
        hit_and_run=None,
    )


def evolve(state: BattleState, event: Event) -> BattleState:
    u = state.units
    match event:
        case BattleCreated(setup=setup):
            state = replace(state, setup=setup, stage=Stage.RESERVES)
            units = {
                spec.id: _new_unit(army.seat, spec.id, state)
                for army in setup.armies
                for spec in army.units
            }
            return replace(state, units=units)
        case ReserveDeclared(unit=unit, mode=mode):
            return state.with_unit(replace(u[unit], place=Place.RESERVE, reserve=mode))
        case StepEnded(seat=seat):
            ready = state.ready | {seat}
            if len(ready) < 2:
                return replace(state, ready=ready)
            if state.stage is Stage.RESERVES:
                return _enter(state, Stage.ROLL_OFF)
            return _enter(state, next_setup_stage(state))
        case RollOffMade(winner=winner):
            return replace(state, roll_off_winner=winner, stage=Stage.CHOOSE)
        case FirstChosen(seat=seat):
            return replace(
                state, first=seat, stage=Stage.DEPLOY, ready=frozenset(), deploy_next=seat
            )
        case UnitDeployed(unit=unit):
            state = state.with_unit(replace(u[unit], place=Place.TABLE))
            if state.alternation and state.stage is Stage.DEPLOY:
                state = replace(state, deploy_next=_next_deployer(state, u[unit].seat))
            return state
        case ScoutMoved(unit=unit, inches=inches):
            return state.with_unit(replace(u[unit], moved=inches, activated=True, scouted=True))
        case TurnStarted(round=round_, turn=turn):
            state = replace(state, round=round_, turn=turn, phase=Phase.START, active_unit=None)
            active = state.active_seat
            fresh: dict[str, UnitState] = {}
            for each in state.units.values():
                changed = replace(
                    each,
                    fought=False,
                    charged=False,
                    consolidated=False,
                    combat_gap=None,
                    results_this_turn=(),
                    rolls=0,
                    transferred=False,
                    fired_models=0,
                    carried_out=False,
                    rammed=False,
                    stopped=False,  # until the end of the turn [L966]
                    challenged_by=None,  # duels last the turn [L1228]
                    duel=None,
                    refused_duel=False,
                    hit_and_run=None,
                )
                if each.seat == active:
                    changed = replace(
                        changed,
                        alert=False,  # its alert ran through the enemy's turn [L959]
                        speed=None,
                        moved=0,
                        activated=False,
                        shot=False,
                        shot_at=frozenset(),
                        regrouped=False,
                        arrived_deep_strike=False,
                    )
                else:  # its own turn is over: shaken and stunned wear off [L1436], [L1443]
                    changed = replace(changed, shaken=False, stunned=False)
                fresh[each.id] = changed
            return replace(state, units=fresh)
        case DawnRolled(day=day):
            return replace(state, night=not day)
        case ReservesRolled(arrived=arrived):
            for unit in arrived:
                state = state.with_unit(replace(state.units[unit], place=Place.AVAILABLE))
            return state
        case TestTaken(unit=unit, test=test, passed=passed):
            me = u[unit]
            if test == "regroup":
                return state.with_unit(replace(me, retreating=not passed, regrouped=passed))
            if passed:
                return state
            if test == "pinning":
                return state.with_unit(replace(me, down_until=state.down_until_next))
            if test == "alert_morale":  # no retreat from alert fire: ``Stopped`` [L966]
                return state
            if test == "shoot_into_melee":  # it does not shoot [L1130]
                me = replace(
                    me, activated=True, shot=True, speed=me.speed if me.activated else None
                )
                return replace(state.with_unit(me), active_unit=unit)
            for enemy in me.locked:  # a failed morale test: the squad retreats [L1164]
                state = _unlock(state, unit, enemy)
            return state.with_unit(replace(state.units[unit], retreating=True))
        case PhaseStarted(phase=phase):
            return replace(state, phase=Phase(phase), active_unit=None)
        case UnitArrived(unit=unit, speed=speed, inches=inches, gone_to_ground=down, mode=mode):
            me = replace(
                u[unit],
                place=Place.TABLE,
                speed=speed,
                moved=inches,
                activated=True,
                arrived_deep_strike=mode == "deep_strike",
                down_until=state.down_until_next if down else u[unit].down_until,
            )
            return _rolled(replace(state.with_unit(me), active_unit=unit), unit)
        case UnitMoved(unit=unit, speed=speed, inches=inches, models_left=left):
            me = replace(
                u[unit],
                speed=speed,
                moved=inches,
                activated=True,
                immobilised=u[unit].immobilised or event.immobilised,
            )
            if event.vehicle is not None:
                me = _damaged(me, event.vehicle)
            state = _rolled(replace(state.with_unit(me), active_unit=unit), unit)
            return _set_models(state, state.units[unit], left, event.wounds_taken)
        case WentToGround(unit=unit):
            return state.with_unit(replace(u[unit], down_until=state.down_until_next))
        case UnitShot(unit=unit, target=target):
            me = u[unit]
            if not me.activated:
                me = replace(me, activated=True, speed=None)
            me = replace(me, shot=True, shot_at=me.shot_at | {target}, rolls=me.rolls + 1)
            if event.fire_points:  # fired from its transport [L295]
                me = replace(me, fired_models=me.fired_models + event.fire_points)
            if not event.alert:  # alert fire leaves the enemy's activation open [L959]
                state = replace(state, active_unit=unit)
            state = state.with_unit(me)
            victim = state.units[target]
            if victim.fire_from != unit:
                victim = replace(
                    victim,
                    fire_from=unit,
                    models_before_fire=victim.models,
                    taken_before_fire=victim.wounds_taken,
                )
            victim = replace(victim, pinning_pending=victim.pinning_pending or event.pinning)
            vd = event.vehicle
            if vd is not None:
                victim = _damaged(victim, vd)
            state = state.with_unit(victim)
            state = _set_models(state, victim, event.models_left, event.wounds_taken)
            if event.poisoned and state.units[target].alive:
                state = state.with_unit(replace(state.units[target], poisoned=True))
            friend = event.friendly
            if friend is not None:
                hit = state.units[friend.unit]
                if friend.vehicle is not None:
                    hit = _damaged(hit, friend.vehicle)
                state = state.with_unit(hit)
                state = _set_models(state, hit, friend.models_left, friend.wounds_taken)
            return state
        case ActivationEnded(unit=unit):
            for other in state.units.values():
                if other.fire_from == unit:
                    state = state.with_unit(
                        replace(
                            other,
                            fire_from=None,
                            models_before_fire=0,
                            taken_before_fire=0,
                            pinning_pending=False,
                        )
                    )
            return replace(state, active_unit=None)
        case AlertDeclared(unit=unit):
            me = replace(u[unit], alert=True, activated=True, speed=Speed.STATIONARY, moved=0)
            return state.with_unit(me)
        case AlertEnded(unit=unit):
            for other in state.units.values():
                if other.fire_from == unit:
                    state = state.with_unit(
                        replace(
                            other,
                            fire_from=None,
                            models_before_fire=0,
                            taken_before_fire=0,
                            pinning_pending=False,
                        )
                    )
            return state.with_unit(replace(state.units[unit], alert=False))
        case ChallengeIssued(unit=unit, target=target):
            return state.with_unit(replace(u[target], challenged_by=unit))
        case ChallengeAnswered(unit=unit, challenger=challenger, accepted=accepted):
            me = replace(u[unit], challenged_by=None)
            if not accepted:
                return state.with_unit(replace(me, refused_duel=True))
            state = state.with_unit(replace(me, duel=challenger))
            return state.with_unit(replace(state.units[challenger], duel=unit))
        case HitAndRunDeclared(unit=unit, initiative=initiative):
            return state.with_unit(replace(u[unit], hit_and_run=initiative))
        case Stopped(unit=unit):
            return state.with_unit(replace(u[unit], stopped=True))
        case ChargeDeclared(unit=unit, target=target):
            me, them = u[unit], u[target]
            state = state.with_unit(replace(me, charged=True, locked=me.locked | {target}))
            return state.with_unit(replace(them, locked=them.locked | {unit}))
        case CombatFought(unit=unit, target=target):
            state = state.with_unit(replace(u[unit], fought=True, rolls=u[unit].rolls + 1))
            state = state.with_unit(replace(state.units[target], fought=True))
            if not event.locked:
                state = _unlock(state, unit, target)
            if event.retreating:
                state = state.with_unit(replace(state.units[event.retreating], retreating=True))
            me, them = state.units[unit], state.units[target]
            state = _set_models(state, me, event.unit_models_left, me.wounds_taken)
            them = state.units[target]
            state = _set_models(state, them, event.target_models_left, them.wounds_taken)
            lost = {
                unit: u[unit].models - event.unit_models_left,
                target: u[target].models - event.target_models_left,
            }
            gap = abs(lost[unit] - lost[target])
            beaten: tuple[str, ...] = {"unit": (target,), "target": (unit,)}.get(
                event.winner, (unit, target)
            )
            return _combat_gaps(state, (unit, target), beaten, gap)
        case CombatResolved(unit=unit, squads=squads, retreating=retreating):
            before = state
            state = _rolled(state, unit)
            for o in squads:
                me = replace(state.units[o.unit], fought=True, hit_and_run=None)
                state = state.with_unit(me if o.vehicle is None else _damaged(me, o.vehicle))
            for d in event.disengaged:  # left by Hit & Run [L416]: its move is its move
                for enemy in state.units[d].locked:
                    state = _unlock(state, d, enemy)
                state = state.with_unit(replace(state.units[d], consolidated=True))
            for r in retreating:
                for enemy in state.units[r].locked:
                    state = _unlock(state, r, enemy)
                state = state.with_unit(replace(state.units[r], retreating=True))
            for o in squads:
                me = state.units[o.unit]
                if me.is_vehicle and _no_ws(state, me):  # never locked [L209]
                    for enemy in me.locked:
                        state = _unlock(state, o.unit, enemy)
                state = _set_models(state, state.units[o.unit], o.models_left, o.wounds_taken)
            lost = {"A": 0, "B": 0}
            for o in squads:
                lost[before.units[o.unit].seat] += before.units[o.unit].models - o.models_left
            if event.winner:  # the sweeping advances' casualties came after the morale tests
                lost["B" if event.winner == "A" else "A"] -= event.swept
            gap = abs(lost["A"] - lost["B"])
            group = tuple(o.unit for o in squads)
            beaten = tuple(
                o.unit for o in squads if before.units[o.unit].seat != (event.winner or "-")
            )
            return _combat_gaps(state, group, beaten, gap)
        case Retreated(unit=unit, models_left=left, wounds_taken=taken):
            state = _rolled(state, unit)
            me = replace(state.units[unit], combat_gap=None)
            if not event.locked:
                for enemy in me.locked:
                    state = _unlock(state, unit, enemy)
                me = replace(state.units[unit], combat_gap=None, retreating=True)
            state = state.with_unit(me)
            return _set_models(state, state.units[unit], left, taken)
        case Rammed(unit=unit, speed=speed, inches=inches, squads=squads):
            me = replace(
                u[unit],
                activated=True,
                speed=speed,
                moved=inches,
                rammed=True,
                rolls=u[unit].rolls + 1,
            )
            state = replace(state.with_unit(me), active_unit=unit)
            for o in squads:
                hit = state.units[o.unit]
                if o.vehicle is not None:
                    hit = _damaged(hit, o.vehicle)
                state = _set_models(state.with_unit(hit), hit, o.models_left, o.wounds_taken)
            return state
        case RoundStarted(round=round_, first=first):
            fresh = {k: _fresh(v) for k, v in state.units.items()}
            return replace(
                state,
                round=round_,
                turn=0,
                first=first,
                phase=Phase.MOVEMENT,
                active_unit=None,
                playing=None,
                units=fresh,
            )
        case SquadChosen(unit=unit):
            return replace(state, playing=unit)
        case ActivationPassed(unit=unit, turn=turn):
            units = {
                k: replace(v, fought=False, consolidated=False, combat_gap=None)
                for k, v in state.units.items()
            }
            if unit in units:  # its "until the end of its next turn" effects end [L845]
                units[unit] = replace(units[unit], activated=True, shaken=False, stunned=False)
            return replace(
                state,
                units=units,
                turn=turn,
                phase=Phase.MOVEMENT,
                playing=None,
                active_unit=None,
            )
        case OutOfControlEnded(unit=unit):
            return state.with_unit(replace(u[unit], out_of_control=False, immobilised=True))
        case Regenerated(unit=unit, healed=healed):
            me = u[unit]
            if healed:
                me = replace(me, wounds_taken=max(me.wounds_taken - 1, 0))
            return state.with_unit(me)
        case (
            PoisonTested(unit=unit, models_left=left, wounds_taken=taken)
            | AccidentTested(unit=unit, models_left=left, wounds_taken=taken)
        ):
            return _set_models(state, u[unit], left, taken)
        case Embarked(unit=unit, transport=transport) if state.stage is Stage.RESERVES:
            # kept in reserve inside a transport kept in reserve: it comes on with it
            me = replace(u[unit], place=Place.EMBARKED, transport=transport, reserve=None)
            return state.with_unit(me)
        case Embarked(unit=unit, transport=transport):
            me = replace(
                u[unit], place=Place.EMBARKED, transport=transport, transferred=True, activated=True
            )
            state = state.with_unit(me)
            if state.alternation and state.stage is Stage.DEPLOY:
                state = replace(state, deploy_next=_next_deployer(state, me.seat))
            return replace(state, active_unit=None) if state.active_unit == unit else state
        case Disembarked(unit=unit, transport=transport, moved=moved, emergency=emergency):
            me = replace(u[unit], place=Place.TABLE, transport=None, transferred=True)
            if moved:
                speed = Speed.RAPID if event.rapid else Speed.NORMAL  # [L282], [L309]
                me = replace(me, activated=True, speed=speed, moved=0)
            if emergency:
                me = replace(me, down_until=state.down_until_next)
            state = state.with_unit(me)
            if not moved:
                state = state.with_unit(replace(state.units[transport], carried_out=True))
            return state
        case PassengersHit(unit=unit, models_left=left, wounds_taken=taken):
            me = replace(u[unit], place=Place.TABLE, transport=None, transferred=True)
            return _set_models(state.with_unit(me), me, left, taken)
        case Disengaged(unit=unit):
            for enemy in u[unit].locked:
                state = _unlock(state, unit, enemy)
            # its normal move replaces a consolidation [L392]
            me = replace(state.units[unit], combat_gap=None, consolidated=True)
            return state.with_unit(me)
        case Consolidated(unit=unit):
            return state.with_unit(replace(u[unit], consolidated=True))
        case GameLengthRolled(continues=continues):
            return state if continues else replace(state, stage=Stage.SCORING, phase=None)
        case ControlReported(objective=objective, seat=seat):
            control = dict(state.control)
            control[objective] = seat or None
            return replace(state, control=control, confirmed=frozenset())  # to confirm again
        case ResultConfirmed(seat=seat):
            return replace(state, confirmed=state.confirmed | {seat})
        case BattleEnded(vp_a=a, vp_b=b, winner=winner):
            return replace(state, stage=Stage.ENDED, result={"A": a, "B": b}, winner=winner or None)
    raise ValueError(f"unknown event {event.kind}")
