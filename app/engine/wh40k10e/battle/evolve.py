"""``evolve(state, event) -> state``: the pure fold that replays a 10th-edition battle.

Each event type has one handler. Handlers only record facts (the command handlers decided them
already); the few derived bookkeeping rules that live here (who deploys next, which flags last a
phase or a turn) are deterministic functions of the state and the event.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Mapping
from functools import cache
from typing import Any, TypeVar

from app.engine.match.events import Event
from app.engine.match.turns import TurnPosition
from app.engine.narrative8e.battle import AlarmState
from app.engine.narrative8e.pack import Side
from app.engine.wh40k10e.battle.events import (
    AttackResolved,
    BattleEnded,
    BattleShockCancelled,
    BattleShockCleared,
    BattleShockTested,
    ChargeDeclared,
    ChargeMoveMade,
    CoherencyCheckOpened,
    CoherencyConfirmed,
    CommandPointsGained,
    DeadlyDemiseResolved,
    DeadlyDemiseRolled,
    EffectApplied,
    EngagementReported,
    ExtraRoundRolled,
    FightsNext,
    FormationDeclared,
    FormationsRevealed,
    FormationSubmitted,
    HazardousTested,
    MatchCreated,
    ModelsRemoved,
    MortalWoundsInflicted,
    MoveStarted,
    ObjectiveControlChanged,
    ObjectivePlaced,
    PhaseEnded,
    PhaseStarted,
    PresenceReported,
    ReactionWindowClosed,
    ReactionWindowOpened,
    ResultConfirmed,
    ResultDisputed,
    RollOffMade,
    RollRerolled,
    RoundEnded,
    RoundStarted,
    ScoutMoved,
    ScoutsFinished,
    SetupStepStarted,
    StepStarted,
    StratagemUsed,
    TransportDestroyed,
    TurnEnded,
    TurnStarted,
    UnitArrived,
    UnitConsolidated,
    UnitDeployed,
    UnitDisembarked,
    UnitMoved,
    UnitsDestroyed,
    UnitSelectedToFight,
    UnitSelectedToShoot,
    VictoryPointsScored,
)
from app.engine.wh40k10e.battle.narrative import (
    AlarmChanged,
    AssaultReturnRolled,
    AttackerUnitsDown,
    BombardmentFinished,
    BombardmentResolved,
    FirstTurnDecided,
    FogOfWarRolled,
    ForcesDeployed,
    GoToGroundDeclared,
    HidingPlaceSearched,
    IronDisciplineRolled,
    MissionStratagemUsed,
    NarrativeEvaluated,
    NarrativeState,
    ObjectiveIdentified,
    ReserveRolled,
    RolesChosen,
    SabotageAttempted,
    SpyKilled,
    StratagemDiceRolled,
    TokenRevealed,
    TokensLaid,
    TokensPlaced,
    UnitEscaped,
    ZonesReported,
    narrative_of,
)
from app.engine.wh40k10e.battle.narrative import moved as narrative_moved
from app.engine.wh40k10e.battle.narrative_expansions import EXPANSION_HANDLERS
from app.engine.wh40k10e.battle.narrative_expansions import (
    stratagem_used as expansion_stratagem_used,
)
from app.engine.wh40k10e.battle.power_levels import POWER_HANDLERS
from app.engine.wh40k10e.battle.setup import Seat, other
from app.engine.wh40k10e.battle.state import (
    BattleState,
    ChargeInProgress,
    DieLoss,
    Effect,
    FightState,
    Location,
    MarkerState,
    ModelDamage,
    MoveMode,
    PlayerState,
    ReserveKind,
    Stage,
    Step,
    Trigger,
    TriggerKind,
    UnitState,
)

__all__ = ["apply_damage", "evolve"]

T = TypeVar("T")
_new = object.__new__


@cache
def _fields(cls: type) -> frozenset[str]:
    return frozenset(f.name for f in dataclasses.fields(cls))


def _replace(obj: T, **changes: Any) -> T:
    """``dataclasses.replace`` for the state's frozen dataclasses (no ``__slots__``, no
    ``__post_init__``) in one ``__dict__`` copy: replay calls it for every event."""
    cls: type = type(obj)
    known = _fields(cls)
    if not changes.keys() <= known:
        raise TypeError(f"{cls.__name__} has no field(s) {sorted(changes.keys() - known)}")
    new: T = _new(cls)
    d = new.__dict__
    d.update(obj.__dict__)
    d.update(changes)
    return new


# -- small helpers ---------------------------------------------------------------------------


def _units(state: BattleState, ids: Iterable[str], **changes: Any) -> dict[str, UnitState]:
    units = dict(state.units)
    for i in ids:
        units[i] = _replace(units[i], **changes)
    return units


def _with_units(state: BattleState, ids: Iterable[str], **changes: Any) -> BattleState:
    return _replace(state, units=_units(state, ids, **changes))


def _player(state: BattleState, seat: Seat, **changes: Any) -> dict[Seat, PlayerState]:
    players = dict(state.players)
    players[seat] = _replace(players[seat], **changes)
    return players


def _damage(
    units: dict[str, UnitState],
    specs: Mapping[str, Any],
    damage: Iterable[ModelDamage],
    restore: bool = False,
) -> None:
    for d in damage:
        u = units[d.unit]
        wounds = list(u.wounds)
        if restore:
            wounds[d.model] = min(specs[d.unit].wounds_of(d.model), wounds[d.model] + d.damage)
        else:
            wounds[d.model] = max(0, wounds[d.model] - d.damage)
        units[d.unit] = _replace(u, wounds=tuple(wounds))


def _flat(losses: Iterable[DieLoss]) -> list[ModelDamage]:
    return [d for loss in losses for d in loss.damage]


def _damaged(state: BattleState, damage: Iterable[ModelDamage], **changes: Any) -> BattleState:
    units = dict(state.units)
    _damage(units, state.specs, damage)
    return _replace(state, units=units, **changes)


def apply_damage(state: BattleState, damage: Iterable[ModelDamage]) -> BattleState:
    """The state with ``damage`` applied (wounds never drop below 0)."""
    return _damaged(state, damage)


def _engage(
    units: dict[str, UnitState], ids: Iterable[str], enemies: Iterable[str], replace: bool
) -> None:
    """Record ``ids`` engaged with ``enemies`` (symmetric); ``replace`` drops older pairs."""
    ids = tuple(ids)
    enemies = frozenset(enemies)
    if replace:
        for i in ids:
            for e in units[i].engaged_with - enemies:
                units[e] = _replace(units[e], engaged_with=units[e].engaged_with - set(ids))
            units[i] = _replace(units[i], engaged_with=enemies)
    else:
        for i in ids:
            units[i] = _replace(units[i], engaged_with=units[i].engaged_with | enemies)
    for e in enemies:
        units[e] = _replace(units[e], engaged_with=units[e].engaged_with | set(ids))


def _owner(state: BattleState, unit: str) -> Seat:
    return state.units[unit].owner


# -- set-up ----------------------------------------------------------------------------------


def _match_created(state: BattleState, e: MatchCreated) -> BattleState:
    setup = e.setup
    specs = {}
    units = {}
    for seat in (Seat.A, Seat.B):
        for spec in setup.armies[seat].units:
            specs[spec.id] = spec
            units[spec.id] = UnitState(id=spec.id, owner=seat, wounds=spec.max_wounds)
    markers = {m.id: MarkerState(id=m.id, x=m.x, y=m.y) for m in setup.mission.objectives.markers}
    cp = setup.options.starting_cp
    return BattleState(
        setup=setup,
        specs=specs,
        units=units,
        markers=markers,
        players={Seat.A: PlayerState(cp=cp), Seat.B: PlayerState(cp=cp)},
        narrative=narrative_of(setup.mission),
    )


def _setup_step(state: BattleState, e: SetupStepStarted) -> BattleState:
    new = _replace(state, setup_index=e.index, stage=e.stage, next_seat=e.next_seat)
    if state.narrative is not None:
        new = _replace(new, narrative=_replace(state.narrative, step=e.purpose or str(e.stage)))
    return new


def _roll_off(state: BattleState, e: RollOffMade) -> BattleState:
    if e.winner is None:
        return _replace(state, rolls=state.rolls + 1)
    roll_offs = {**state.roll_offs, e.purpose: e.winner}
    changes: dict[str, Any] = {}
    if e.purpose == "attacker":
        changes["attacker"] = e.winner
    elif e.purpose == "first_turn":
        changes["first_player"] = e.winner
    return _replace(state, roll_offs=roll_offs, rolls=state.rolls + 1, **changes)


def _objective_placed(state: BattleState, e: ObjectivePlaced) -> BattleState:
    markers = dict(state.markers)
    markers[e.marker] = _replace(markers[e.marker], x=e.x, y=e.y, placed_by=e.seat)
    return _replace(state, markers=markers, next_seat=other(e.seat))


def _formation_submitted(state: BattleState, e: FormationSubmitted) -> BattleState:
    return _replace(state, players=_player(state, e.seat, formation_submitted=True))


def _formation_declared(state: BattleState, e: FormationDeclared) -> BattleState:
    return _replace(state, formations={**state.formations, e.seat: e.formation})


def _formations_revealed(state: BattleState, e: FormationsRevealed) -> BattleState:
    units = {i: _replace(u, location=Location.TO_DEPLOY) for i, u in state.units.items()}
    for formation in e.formations.values():
        for leader, bodyguard in formation.attachments:
            units[leader] = _replace(units[leader], bodyguard=bodyguard)
            units[bodyguard] = _replace(units[bodyguard], leader=leader)
        for unit, transport in formation.embarked:
            units[unit] = _replace(units[unit], location=Location.EMBARKED, embarked_in=transport)
        for unit, kind in formation.reserves:
            units[unit] = _replace(units[unit], location=Location.RESERVES, reserve=kind)
        for unit in formation.hover:
            units[unit] = _replace(units[unit], hover=True)
    for unit in e.held_back:
        units[unit] = _replace(units[unit], location=Location.HELD_BACK)
    return _replace(state, units=units, formations=dict(e.formations), revealed=True)


def _deployed(state: BattleState, e: UnitDeployed) -> BattleState:
    new = _with_units(state, e.units, location=Location.BATTLEFIELD)
    waiting = other(e.seat)
    if not any(u.location is Location.TO_DEPLOY for u in new.units_of(waiting)):
        waiting = e.seat
    return _replace(new, next_seat=waiting)


def _scout_moved(state: BattleState, e: ScoutMoved) -> BattleState:
    return _with_units(state, e.units, scouted=True)


def _scouts_finished(state: BattleState, e: ScoutsFinished) -> BattleState:
    return _replace(
        state, players=_player(state, e.seat, scouts_done=True), next_seat=other(e.seat)
    )


# -- turn structure --------------------------------------------------------------------------

_TURN_RESET: dict[str, Any] = {
    "move": None,
    "arrived": False,
    "disembarked": False,
    "cannot_charge": False,
    "charge_moved": False,
    "charge_bonus": False,
}
_PHASE_RESET: dict[str, Any] = {
    "shot": False,
    "charge_declared": False,
    "fought": False,
    "shock_tested": False,
    "embarked_this_phase": False,
    "targets": frozenset(),
    "attacked": frozenset(),
    "weapons_used": (),
    "all_weapons_used": False,
    "attacks": 0,
    "rolled": 0,
    "effects": frozenset(),
}


def _round_started(state: BattleState, e: RoundStarted) -> BattleState:
    players = {s: _replace(p, extra_cp_this_round=False) for s, p in state.players.items()}
    return _replace(state, players=players, stage=Stage.BATTLE, next_seat=None)


def _reset(units: Mapping[str, UnitState], defaults: Mapping[str, Any]) -> dict[str, UnitState]:
    """Units with the given fields back to their defaults (untouched units are kept)."""
    out = dict(units)
    wanted = defaults.items()
    for i, u in units.items():
        if not wanted <= u.__dict__.items():
            out[i] = _replace(u, **defaults)
    return out


def _narrative_turn(state: BattleState, e: TurnStarted) -> BattleState:
    n = state.narrative
    if n is None or not n.alarm.raised or e.seat is state.attacker:
        return state
    return _replace(state, narrative=_replace(n, alarm=n.alarm.defender_turn_starts()))


def _turn_started(state: BattleState, e: TurnStarted) -> BattleState:
    new = _narrative_turn(_turn_started_10e(state, e), e)
    n = state.narrative
    if n is not None and n.entrenched and state.position is not None:
        # Entrenchments last until the unit moves [L393]: the moves of the turn that ends
        kept = frozenset(u for u in n.entrenched if not narrative_moved(state, u))
        new = _n(new, entrenched=kept)
    return new


def _turn_started_10e(state: BattleState, e: TurnStarted) -> BattleState:
    units = _reset(state.units, _TURN_RESET)
    players = {s: _replace(p, overwatch_this_turn=False) for s, p in state.players.items()}
    pos = TurnPosition(round=e.round, turn=e.turn, phase="", step="")
    start = {i: u.models_alive for i, u in units.items()}
    return _replace(state, units=units, players=players, position=pos, models_at_turn_start=start)


def _phase_started(state: BattleState, e: PhaseStarted) -> BattleState:
    new = _phase_started_10e(state, e)
    if new.narrative is not None:
        n = _replace(
            new.narrative,
            reserve_tried=frozenset(),
            assault_rolled=False,
            arrived_now=(),
            arrival_uses=(),
        )
        new = _replace(new, narrative=n)
    return new


def _phase_started_10e(state: BattleState, e: PhaseStarted) -> BattleState:
    assert state.position is not None
    pos = TurnPosition(state.position.round, state.position.turn, e.phase, e.step)
    fight = None
    if e.step in (Step.FIGHTS_FIRST, Step.REMAINING_COMBATS):
        eligible = frozenset(
            u.id
            for u in state.units.values()
            if state.on_battlefield(u.id)
            and (state.engaged(u.id) or any(state.units[i].charge_moved for i in state.group(u.id)))
        )
        fight = FightState(step=e.step, eligible_at_start=eligible)
    return _replace(state, position=pos, fight=fight)


def _step_started(state: BattleState, e: StepStarted) -> BattleState:
    assert state.position is not None
    p = state.position
    pos = TurnPosition(p.round, p.turn, p.phase, e.step)
    fight = state.fight
    if fight is not None:
        fight = _replace(fight, step=e.step, last_selector=None)
    return _replace(state, position=pos, fight=fight)


def _phase_ended(state: BattleState, e: PhaseEnded) -> BattleState:
    units = _reset(state.units, _PHASE_RESET)
    players = {s: _replace(p, used_this_phase=frozenset()) for s, p in state.players.items()}
    return _replace(
        state, units=units, players=players, charge=None, fight=None, window=None, trigger=None
    )


def _nothing(state: BattleState, e: Event) -> BattleState:
    return state


def _extra_round(state: BattleState, e: ExtraRoundRolled) -> BattleState:
    return _replace(state, rolls=state.rolls + 1)


def _window_opened(state: BattleState, e: ReactionWindowOpened) -> BattleState:
    return _replace(state, window=e.seat)


def _window_closed(state: BattleState, e: ReactionWindowClosed) -> BattleState:
    return _replace(state, window=None)


# -- command phase ---------------------------------------------------------------------------


def _cp_gained(state: BattleState, e: CommandPointsGained) -> BattleState:
    p = state.players[e.seat]
    changes: dict[str, Any] = {"cp": p.cp + e.amount}
    if e.extra:
        changes["extra_cp_this_round"] = True
    return _replace(state, players=_player(state, e.seat, **changes))


def _shock_cleared(state: BattleState, e: BattleShockCleared) -> BattleState:
    return _with_units(state, e.units, battle_shocked=False)


def _shock_tested(state: BattleState, e: BattleShockTested) -> BattleState:
    new = _with_units(state, e.units, shock_tested=True, battle_shocked=not e.passed)
    trigger = None
    if not e.passed:
        trigger = Trigger(TriggerKind.BATTLE_SHOCK_FAILED, _owner(state, e.units[0]), e.units[0])
    return _replace(new, rolls=state.rolls + 1, trigger=trigger)


def _shock_cancelled(state: BattleState, e: BattleShockCancelled) -> BattleState:
    return _with_units(state, e.units, battle_shocked=False)


# -- movement --------------------------------------------------------------------------------


def _move_started(state: BattleState, e: MoveStarted) -> BattleState:
    trigger = Trigger(TriggerKind.MOVE_STARTED, _owner(state, e.units[0]), e.units[0])
    return _replace(state, trigger=trigger)


def _moved(state: BattleState, e: UnitMoved) -> BattleState:
    units = _units(state, e.units, move=e.mode)
    _damage(units, state.specs, _flat(e.losses))
    if e.mode is MoveMode.FALL_BACK:
        _engage(units, e.units, (), replace=True)
    if e.embarked_in is not None:
        for i in e.units:
            units[i] = _replace(
                units[i],
                location=Location.EMBARKED,
                embarked_in=e.embarked_in,
                embarked_this_phase=True,
            )
    if e.left_battlefield:
        for i in e.units:
            u = units[i]
            units[i] = _replace(
                u,
                location=Location.RESERVES,
                reserve=u.reserve or ReserveKind.STRATEGIC,
                must_arrive=state.round + 1,
            )
    trigger = None
    if (
        e.mode is not MoveMode.REMAIN_STATIONARY
        and not e.left_battlefield
        and e.embarked_in is None
    ):
        kind = "advance" if e.mode is MoveMode.ADVANCE else "desperate_escape"
        trigger = Trigger(
            TriggerKind.UNIT_MOVED,
            _owner(state, e.units[0]),
            e.units[0],
            roll_kind=kind if e.roll is not None else None,
            roll=e.roll,
            losses=e.losses,
        )
    rolls = state.rolls + (1 if e.roll is not None else 0)
    return _replace(state, units=units, trigger=trigger, rolls=rolls)


def _disembarked(state: BattleState, e: UnitDisembarked) -> BattleState:
    changes: dict[str, Any] = {
        "location": Location.BATTLEFIELD,
        "embarked_in": None,
        "disembarked": True,
        "transport_destroyed": False,
    }
    if e.counts_as_moved or e.forced:
        changes.update(move=MoveMode.NORMAL, cannot_charge=True)
    if e.forced:
        changes["battle_shocked"] = True
    units = _units(state, e.units, **changes)
    _damage(units, state.specs, e.damage)
    trigger = Trigger(TriggerKind.UNIT_SET_UP, _owner(state, e.units[0]), e.units[0])
    rolls = state.rolls + (1 if e.roll is not None else 0)
    return _replace(state, units=units, trigger=trigger, rolls=rolls)


def _arrived(state: BattleState, e: UnitArrived) -> BattleState:
    new = _with_units(
        state,
        e.units,
        location=Location.BATTLEFIELD,
        reserve=None,
        arrived=True,
        move=MoveMode.NORMAL,
        must_arrive=None,
    )
    trigger = Trigger(TriggerKind.UNIT_SET_UP, _owner(state, e.units[0]), e.units[0])
    return _replace(new, trigger=trigger)


def _transport_destroyed(state: BattleState, e: TransportDestroyed) -> BattleState:
    return _with_units(state, e.passengers, transport_destroyed=True)


# -- shooting, charge, fight -----------------------------------------------------------------


def _selected_to_shoot(state: BattleState, e: UnitSelectedToShoot) -> BattleState:
    units = dict(state.units)
    for i in e.units:
        u = units[i]
        effects = u.effects | {Effect.OVERWATCH} if e.overwatch else u.effects
        units[i] = _replace(u, shot=True, targets=frozenset(e.targets), effects=effects)
    trigger = Trigger(
        TriggerKind.TARGETS_SELECTED, _owner(state, e.units[0]), e.units[0], targets=e.targets
    )
    return _replace(state, units=units, trigger=trigger)


def _attack_resolved(state: BattleState, e: AttackResolved) -> BattleState:
    """The attacker (every part of an Attached unit) has now attacked the target (every part)
    with the weapons the event names; an attack naming none (or logged before weapons were
    recorded) used every weapon of the unit this phase. Fire Overwatch included."""
    new = _damaged(state, e.damage, rolls=state.rolls + (1 if e.dice else 0))
    target = frozenset(state.group(e.target)) | {e.target}
    units = dict(new.units)
    for i in state.group(e.attacker):
        u = units[i]
        units[i] = _replace(
            u,
            attacked=u.attacked | target,
            weapons_used=u.weapons_used + e.weapons,
            all_weapons_used=u.all_weapons_used or not e.weapons,
            attacks=u.attacks + 1,
        )
    # the embarked units that lent a weapon through Firing Deck count as having shot
    for w in e.weapons:
        if w.unit in units and w.unit not in state.group(e.attacker):
            units[w.unit] = _replace(units[w.unit], shot=True)
    return _replace(new, units=units)


def _hazardous(state: BattleState, e: HazardousTested) -> BattleState:
    new = _damaged(state, _flat(e.losses), rolls=state.rolls + 1)
    trigger = Trigger(
        TriggerKind.ROLLED,
        _owner(state, e.units[0]),
        e.units[0],
        roll_kind="hazardous",
        roll=e.roll,
        losses=e.losses,
    )
    return _replace(new, trigger=trigger)


def _mortal_wounds(state: BattleState, e: MortalWoundsInflicted) -> BattleState:
    return _damaged(state, e.damage, rolls=state.rolls + 1)


def _demise_rolled(state: BattleState, e: DeadlyDemiseRolled) -> BattleState:
    u = state.units[e.unit]
    new = _with_units(state, (e.unit,), demise_rolled=u.demise_rolled + e.models)
    return _replace(new, demises=state.demises + (e.unit,) * e.explodes, rolls=state.rolls + 1)


def _demise_resolved(state: BattleState, e: DeadlyDemiseResolved) -> BattleState:
    demises = list(state.demises)
    demises.remove(e.unit)
    return _replace(state, demises=tuple(demises))


def _models_removed(state: BattleState, e: ModelsRemoved) -> BattleState:
    u = state.units[e.unit]
    wounds = tuple(0 if i in e.models else w for i, w in enumerate(u.wounds))
    # models removed (coherency, a player's fix) are not destroyed by an attack: they never
    # trigger "when destroyed" rules such as Deadly Demise [L454-456]
    removed = sum(1 for i in e.models if u.wounds[i] > 0)
    return _with_units(state, (e.unit,), wounds=wounds, demise_rolled=u.demise_rolled + removed)


def _coherency_opened(state: BattleState, e: CoherencyCheckOpened) -> BattleState:
    return _replace(state, coherency=e.seats)


def _coherency_confirmed(state: BattleState, e: CoherencyConfirmed) -> BattleState:
    return _replace(state, coherency=tuple(s for s in state.coherency if s is not e.seat))


def _units_destroyed(state: BattleState, e: UnitsDestroyed) -> BattleState:
    units = dict(state.units)
    for i in e.units:
        units[i] = _replace(units[i], wounds=(0,) * len(units[i].wounds))
    return _replace(state, units=units)


def _charge_declared(state: BattleState, e: ChargeDeclared) -> BattleState:
    seat = _owner(state, e.units[0])
    new = _with_units(state, e.units, charge_declared=True)
    charge = ChargeInProgress(
        unit=e.units[0], seat=seat, targets=e.targets, roll=e.roll.total, heroic=e.heroic
    )
    trigger = Trigger(
        TriggerKind.CHARGE_ROLLED,
        seat,
        e.units[0],
        targets=e.targets,
        roll_kind="charge",
        roll=e.roll,
    )
    return _replace(new, charge=charge, trigger=trigger, rolls=state.rolls + 1)


def _charge_move(state: BattleState, e: ChargeMoveMade) -> BattleState:
    heroic = state.charge is not None and state.charge.heroic
    if not e.success:
        return _replace(state, charge=None)
    units = _units(state, e.units, charge_moved=True, charge_bonus=not heroic)
    _engage(units, e.units, e.engaged_with, replace=False)
    trigger = Trigger(
        TriggerKind.CHARGE_ENDED, _owner(state, e.units[0]), e.units[0], targets=e.engaged_with
    )
    return _replace(state, units=units, charge=None, trigger=trigger)


def _selected_to_fight(state: BattleState, e: UnitSelectedToFight) -> BattleState:
    new = _with_units(state, e.units, fought=True, targets=frozenset(e.targets))
    fight = state.fight or FightState(step=e.step)
    next_unit = None if fight.next_unit in e.units else fight.next_unit
    fight = _replace(
        fight, step=e.step, last_selector=e.seat, current=e.units[0], next_unit=next_unit
    )
    trigger = Trigger(TriggerKind.SELECTED_TO_FIGHT, e.seat, e.units[0], targets=e.targets)
    return _replace(new, fight=fight, trigger=trigger)


def _consolidated(state: BattleState, e: UnitConsolidated) -> BattleState:
    units = dict(state.units)
    if e.engaged_with is not None:
        _engage(units, e.units, e.engaged_with, replace=True)
    fight = state.fight
    if fight is not None and fight.current in e.units:
        fight = _replace(fight, current=None)
    trigger = Trigger(TriggerKind.UNIT_FOUGHT, _owner(state, e.units[0]), e.units[0])
    return _replace(state, units=units, fight=fight, trigger=trigger)


def _fights_next(state: BattleState, e: FightsNext) -> BattleState:
    fight = state.fight or FightState()
    return _replace(state, fight=_replace(fight, next_unit=e.unit))


def _engagement(state: BattleState, e: EngagementReported) -> BattleState:
    units = dict(state.units)
    _engage(units, e.units, e.engaged_with, replace=True)
    return _replace(state, units=units)


# -- objectives, stratagems, result ----------------------------------------------------------


def _presence(state: BattleState, e: PresenceReported) -> BattleState:
    presence = dict(state.presence)
    presence[e.marker] = {**presence.get(e.marker, {}), e.seat: e.units}
    return _replace(state, presence=presence)


def _control(state: BattleState, e: ObjectiveControlChanged) -> BattleState:
    markers = {
        m: _replace(ms, controller=e.control.get(m, ms.controller))
        for m, ms in state.markers.items()
    }
    return _replace(state, markers=markers)


def _vp(state: BattleState, e: VictoryPointsScored) -> BattleState:
    return _replace(state, players=_player(state, e.seat, vp=state.players[e.seat].vp + e.vp))


def _stratagem(state: BattleState, e: StratagemUsed) -> BattleState:
    p = state.players[e.seat]
    changes: dict[str, Any] = {
        "cp": p.cp - e.cp,
        "used_this_phase": p.used_this_phase | {e.stratagem},
    }
    if e.stratagem == "fire_overwatch":
        changes["overwatch_this_turn"] = True
    return _replace(state, players=_player(state, e.seat, **changes))


def _effect(state: BattleState, e: EffectApplied) -> BattleState:
    units = dict(state.units)
    for i in e.units:
        units[i] = _replace(units[i], effects=units[i].effects | {e.effect})
    return _replace(state, units=units)


def _rerolled(state: BattleState, e: RollRerolled) -> BattleState:
    units = dict(state.units)
    _damage(units, state.specs, e.restored, restore=True)
    _damage(units, state.specs, e.damage)
    charge = state.charge
    if e.roll_kind == "charge" and charge is not None:
        charge = _replace(charge, roll=e.roll.total)
    trigger = state.trigger
    if trigger is not None:
        trigger = _replace(trigger, roll=e.roll, rerolled=True)
    return _replace(state, units=units, charge=charge, trigger=trigger, rolls=state.rolls + 1)


def _battle_ended(state: BattleState, e: BattleEnded) -> BattleState:
    return _replace(
        state, stage=Stage.ENDED, result=e.result, charge=None, window=None, trigger=None
    )


def _confirmed(state: BattleState, e: ResultConfirmed) -> BattleState:
    return _replace(state, players=_player(state, e.seat, result="confirmed", dispute=""))


def _disputed(state: BattleState, e: ResultDisputed) -> BattleState:
    return _replace(state, players=_player(state, e.seat, result="disputed", dispute=e.reason))


# -- narrative missions (battle/narrative.py) -------------------------------------------------


def _n(state: BattleState, **changes: Any) -> BattleState:
    assert state.narrative is not None
    return _replace(state, narrative=_replace(state.narrative, **changes))


def _nv(state: BattleState) -> NarrativeState:
    assert state.narrative is not None
    return state.narrative


def _roles_chosen(state: BattleState, e: RolesChosen) -> BattleState:
    rolls = state.rolls + (1 if e.roll is not None else 0)
    roll_offs = {**state.roll_offs, "attacker": e.attacker}
    return _replace(state, attacker=e.attacker, roll_offs=roll_offs, rolls=rolls)


def _tokens_placed(state: BattleState, e: TokensPlaced) -> BattleState:
    return _n(state, tokens=dict(e.tokens), deployer=e.seat)


def _reserve_units(state: BattleState, ids: Iterable[str]) -> BattleState:
    ids = tuple(ids)
    new = _with_units(state, ids, location=Location.RESERVES, reserve=ReserveKind.STRATEGIC)
    return _n(new, reserves=_nv(state).reserves | frozenset(ids))


def _tokens_laid(state: BattleState, e: TokensLaid) -> BattleState:
    new = _reserve_units(state, e.reserves)
    return _n(new, token_ids=e.tokens, deployer=e.seat)


def _token_revealed(state: BattleState, e: TokenRevealed) -> BattleState:
    new = _with_units(state, e.units, location=Location.BATTLEFIELD)
    return _n(new, revealed={**_nv(state).revealed, e.token: e.unit})


def _forces_deployed(state: BattleState, e: ForcesDeployed) -> BattleState:
    new = _with_units(state, e.units, location=Location.BATTLEFIELD)
    return _reserve_units(new, e.reserves)


def _go_to_ground(state: BattleState, e: GoToGroundDeclared) -> BattleState:
    return _n(state, go_to_ground=frozenset(e.units))


def _bombarded(state: BattleState, e: BombardmentResolved) -> BattleState:
    units = dict(state.units)
    _damage(units, state.specs, e.damage)
    new = _replace(state, units=units)
    if e.grounded:
        new = _n(new, grounded=_nv(state).grounded | {e.target})
    return new


def _bombardment_finished(state: BattleState, e: BombardmentFinished) -> BattleState:
    return _n(state, bombarded=True)


def _first_turn(state: BattleState, e: FirstTurnDecided) -> BattleState:
    rolls = state.rolls + (1 if e.roll is not None else 0)
    roll_offs = {**state.roll_offs, "first_turn": e.first}
    return _replace(state, first_player=e.first, roll_offs=roll_offs, rolls=rolls)


def _mission_stratagem(state: BattleState, e: MissionStratagemUsed) -> BattleState:
    cp = state.players[e.seat].cp - e.cp
    new = _replace(state, players=_player(state, e.seat, cp=cp))
    n = _nv(state)
    changes: dict[str, Any] = {"spent": (*n.spent, (e.seat, e.stratagem, e.cp, e.round))}
    if e.target is not None:
        changes["aimed"] = (*n.aimed, (e.seat, e.stratagem, e.target))
        changes["aimed_at"] = (*n.aimed_at, (e.seat, e.stratagem, e.target, e.cp, e.round))
    if e.stratagem == "decoys":
        changes["decoys_allowed"] = n.decoys_allowed + n.rules.decoys_per_use
    elif e.stratagem == "night-raider":
        changes["dawn_raid_rounds"] = n.dawn_raid_rounds + e.cp
    elif e.stratagem == "night-raid":
        # Rescue plays with the Dawn Raid rule [L541]
        changes["dawn_raid_rounds"] = max(n.dawn_raid_rounds, n.rules.dawn_raid_rounds)
    elif e.target is not None and e.target in n.arrived_now:
        changes["arrival_uses"] = (*n.arrival_uses, (e.stratagem, e.target))
    elif e.stratagem == "entrenchments" and e.target is not None:
        changes["entrenched"] = n.entrenched | set(state.group(e.target))
    elif e.stratagem == "extra-explosives" and e.target is not None:
        changes["extra_explosives"] = (*n.extra_explosives, e.target)
    new = _n(new, **changes)
    if n.expansion is not None:
        new = expansion_stratagem_used(new, e.seat, e.stratagem, e.cp, e.target)
    return new


def _fog_of_war(state: BattleState, e: FogOfWarRolled) -> BattleState:
    new = _replace(state, rolls=state.rolls + 1)
    if e.delayed:  # back into Reserve, to arrive in its next turn [L591]
        new = _with_units(
            new,
            e.units,
            location=Location.RESERVES,
            reserve=e.reserve,
            arrived=False,
            move=None,
            must_arrive=e.must_arrive,
        )
        if new.trigger is not None and new.trigger.unit in e.units:
            new = _replace(new, trigger=None)
    if state.narrative is None:  # Only War: the battle's own record (ruling 96)
        return _replace(new, fog_rolled=state.fog_rolled | set(e.units))
    return _n(new, fog_rolled=_nv(state).fog_rolled | set(e.units))


def _stratagem_dice(state: BattleState, e: StratagemDiceRolled) -> BattleState:
    return _replace(apply_damage(state, e.damage), rolls=state.rolls + 1)


def _iron_discipline(state: BattleState, e: IronDisciplineRolled) -> BattleState:
    n = _nv(state)
    new = _replace(state, rolls=state.rolls + 1)
    return _n(new, grounded=n.grounded - set(e.steady), steady=n.steady | set(e.steady))


def _alarm(state: BattleState, e: AlarmChanged) -> BattleState:
    alarm = _nv(state).alarm
    if e.state is AlarmState.PENDING:
        alarm = alarm.at_end_of_turn(e.cause)
    else:
        during = None if e.during is None else Side.ATTACKER
        if e.during is not None and e.during is not state.attacker:
            during = Side.DEFENDER
        alarm = dataclasses.replace(
            alarm, state=AlarmState.RAISED, cause=e.cause, round=e.round, during=during
        )
    return _n(state, alarm=alarm)


def _reserve_rolled(state: BattleState, e: ReserveRolled) -> BattleState:
    new = _n(state, reserve_tried=_nv(state).reserve_tried | {e.unit})
    if e.arrives:
        new = _n(new, reserves=_nv(new).reserves - {e.unit})
    if e.reason == "fog_of_war":
        new = _n(new, fog_delayed=_nv(new).fog_delayed | {e.unit})
    return _replace(new, rolls=new.rolls + (1 if e.roll is not None else 0))


def _assault_return(state: BattleState, e: AssaultReturnRolled) -> BattleState:
    n = _nv(state)
    units = dict(state.units)
    for i in e.returned:
        units[i] = _replace(
            units[i],
            wounds=state.specs[i].max_wounds,
            location=Location.BATTLEFIELD,
            arrived=True,
            move=MoveMode.NORMAL,
            embarked_in=None,
            engaged_with=frozenset(),
            demise_rolled=0,
            battle_shocked=False,
        )
    down = tuple(u for u in n.down if u not in e.returned)
    new = _replace(state, units=units, rolls=state.rolls + 1)
    return _n(
        new,
        down=down,
        returned=(*n.returned, *e.returned),
        assault_rolled=True,
        arrived_now=(*n.arrived_now, *e.returned),
    )


def _attacker_down(state: BattleState, e: AttackerUnitsDown) -> BattleState:
    """An Attached unit counts as one destruction (docs/rulings/narrative-8e.md): a Leader or
    Bodyguard destroyed while its partner is down already, or with it, adds none."""
    n = _nv(state)
    seen = set(n.down)
    counted = 0
    for i in e.units:
        u = state.units[i]
        partner = u.leader if u.leader is not None else u.bodyguard
        if partner is None or partner not in seen:
            counted += 1
        seen.add(i)
    return _n(state, down=(*n.down, *e.units), destructions=n.destructions + counted)


def _sabotage(state: BattleState, e: SabotageAttempted) -> BattleState:
    return _n(state, attempts=(*_nv(state).attempts, (e.unit, e.round)))


def _searched(state: BattleState, e: HidingPlaceSearched) -> BattleState:
    n = _nv(state)
    new = _replace(state, rolls=state.rolls + 1)
    return _n(new, searched=(*n.searched, e.place), spy_found_at=e.place if e.found else None)


def _spy_killed(state: BattleState, e: SpyKilled) -> BattleState:
    return _n(state, spy_alive=False)


def _escaped(state: BattleState, e: UnitEscaped) -> BattleState:
    new = _with_units(state, e.units, location=Location.ESCAPED)
    return _n(new, escaped=(*_nv(state).escaped, *e.units))


def _zones(state: BattleState, e: ZonesReported) -> BattleState:
    return _n(state, first_line=e.first_line, second_line=e.second_line)


def _objective_identified(state: BattleState, e: ObjectiveIdentified) -> BattleState:
    mysterious = {**state.mysterious, e.marker: e.result}
    return _replace(state, mysterious=mysterious, rolls=state.rolls + 1)


def _evaluated(state: BattleState, e: NarrativeEvaluated) -> BattleState:
    return _replace(state, rolls=state.rolls + (1 if e.roll is not None else 0))


_HANDLERS: dict[type[Event], Callable[[BattleState, Any], BattleState]] = {
    MatchCreated: _match_created,
    RolesChosen: _roles_chosen,
    TokensPlaced: _tokens_placed,
    TokensLaid: _tokens_laid,
    TokenRevealed: _token_revealed,
    ForcesDeployed: _forces_deployed,
    GoToGroundDeclared: _go_to_ground,
    BombardmentResolved: _bombarded,
    BombardmentFinished: _bombardment_finished,
    FirstTurnDecided: _first_turn,
    MissionStratagemUsed: _mission_stratagem,
    AlarmChanged: _alarm,
    ReserveRolled: _reserve_rolled,
    AssaultReturnRolled: _assault_return,
    StratagemDiceRolled: _stratagem_dice,
    FogOfWarRolled: _fog_of_war,
    IronDisciplineRolled: _iron_discipline,
    AttackerUnitsDown: _attacker_down,
    SabotageAttempted: _sabotage,
    HidingPlaceSearched: _searched,
    SpyKilled: _spy_killed,
    UnitEscaped: _escaped,
    ZonesReported: _zones,
    ObjectiveIdentified: _objective_identified,
    NarrativeEvaluated: _evaluated,
    **EXPANSION_HANDLERS,
    **POWER_HANDLERS,
    SetupStepStarted: _setup_step,
    RollOffMade: _roll_off,
    ObjectivePlaced: _objective_placed,
    FormationSubmitted: _formation_submitted,
    FormationDeclared: _formation_declared,
    FormationsRevealed: _formations_revealed,
    UnitDeployed: _deployed,
    ScoutMoved: _scout_moved,
    ScoutsFinished: _scouts_finished,
    RoundStarted: _round_started,
    TurnStarted: _turn_started,
    PhaseStarted: _phase_started,
    StepStarted: _step_started,
    PhaseEnded: _phase_ended,
    TurnEnded: _nothing,
    RoundEnded: _nothing,
    ExtraRoundRolled: _extra_round,
    ReactionWindowOpened: _window_opened,
    ReactionWindowClosed: _window_closed,
    CommandPointsGained: _cp_gained,
    BattleShockCleared: _shock_cleared,
    BattleShockTested: _shock_tested,
    BattleShockCancelled: _shock_cancelled,
    MoveStarted: _move_started,
    UnitMoved: _moved,
    UnitDisembarked: _disembarked,
    UnitArrived: _arrived,
    TransportDestroyed: _transport_destroyed,
    UnitSelectedToShoot: _selected_to_shoot,
    AttackResolved: _attack_resolved,
    HazardousTested: _hazardous,
    MortalWoundsInflicted: _mortal_wounds,
    DeadlyDemiseRolled: _demise_rolled,
    DeadlyDemiseResolved: _demise_resolved,
    ModelsRemoved: _models_removed,
    UnitsDestroyed: _units_destroyed,
    CoherencyCheckOpened: _coherency_opened,
    CoherencyConfirmed: _coherency_confirmed,
    ChargeDeclared: _charge_declared,
    ChargeMoveMade: _charge_move,
    UnitSelectedToFight: _selected_to_fight,
    UnitConsolidated: _consolidated,
    FightsNext: _fights_next,
    EngagementReported: _engagement,
    PresenceReported: _presence,
    ObjectiveControlChanged: _control,
    VictoryPointsScored: _vp,
    StratagemUsed: _stratagem,
    EffectApplied: _effect,
    RollRerolled: _rerolled,
    BattleEnded: _battle_ended,
    ResultConfirmed: _confirmed,
    ResultDisputed: _disputed,
}

# Events after which a "just after ..." reaction is still possible.
_KEEP_TRIGGER: frozenset[type[Event]] = frozenset(
    {
        PresenceReported,
        EngagementReported,
        CommandPointsGained,
        StratagemUsed,
        EffectApplied,
        ObjectiveControlChanged,
        VictoryPointsScored,
        FightsNext,
        ReactionWindowOpened,
        ReactionWindowClosed,
        BattleShockCancelled,
        TransportDestroyed,
    }
)


def _roller_unit(event: Event) -> str | None:
    """The unit a roll was made for (the first of ``units``, ``unit`` or ``attacker``)."""
    units = getattr(event, "units", None)
    if units:
        return str(units[0])
    unit = getattr(event, "attacker", None) or getattr(event, "unit", None)
    return unit if isinstance(unit, str) else None


def _count_roll(state: BattleState, event: Event) -> BattleState:
    unit = _roller_unit(event)
    if unit is None or unit not in state.units:
        return state
    units = dict(state.units)
    for i in state.group(unit):
        units[i] = _replace(units[i], rolled=units[i].rolled + 1)
    return _replace(state, units=units)


def evolve(state: BattleState, event: Event) -> BattleState:
    """The state after ``event``."""
    handler = _HANDLERS[type(event)]
    new = handler(state, event)
    kept = new.trigger is state.trigger and state.trigger is not None
    if kept and type(event) not in _KEEP_TRIGGER:
        new = _replace(new, trigger=None)
    if new.position is not None and event.rolled_dice():
        new = _count_roll(new, event)
    return new
