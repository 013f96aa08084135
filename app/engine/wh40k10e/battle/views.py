"""What each seat may see, and what it may do now.

:func:`render` builds the JSON-ready view of the state for player A, player B or a spectator
(``None``). Hidden information is absent from it, not masked: before Battle Formations are
revealed, a player's view holds their own declaration and nothing of the opponent's (the state
keeps no other trace of it: unit locations stay "undeclared" for everybody until the reveal).

:func:`legal_actions` lists the commands a seat could send now, as ready-to-send command JSON
(with the choices a button still needs, such as targets), by running each candidate through
the same :func:`~app.engine.wh40k10e.battle.rules.decide` that would accept or refuse it.
"""

from __future__ import annotations

import weakref
from collections.abc import Iterable
from typing import Any

from app.engine.match.codec import JsonObject, JsonValue, Tagged, to_json
from app.engine.match.errors import Refusal
from app.engine.match.events import Viewer
from app.engine.roller import Roller
from app.engine.wh40k10e.battle.commands import (
    COMMAND_CODEC,
    ArriveFromReserves,
    AssaultReturn,
    AttemptSabotage,
    BattleShockTest,
    Bombard,
    CompleteCharge,
    ConfirmCoherency,
    ConfirmResult,
    Consolidate,
    CullUnit,
    DeadlyDemise,
    DeclareCharge,
    DeclareFormations,
    DeclarePowerLevels,
    DeployUnit,
    Disembark,
    DisembarkFromDestroyedTransport,
    DisputeResult,
    EndPhase,
    EndScouts,
    EscapeUnit,
    Fight,
    GoToGround,
    Move,
    Pass,
    PlaceObjective,
    PlaceTokens,
    RaiseAlarm,
    ReportSpyKilled,
    ReportSpyUnplaced,
    ReportZones,
    ReserveRoll,
    RollOff,
    ScoutMove,
    SearchHidingPlace,
    Shoot,
    StartMove,
    UseMissionStratagem,
    UseStratagem,
)
from app.engine.wh40k10e.battle.eligibility import (
    charge_target_problem,
    fight_turn,
    head,
    melee_target_problem,
    shoot_target_problem,
)
from app.engine.wh40k10e.battle.flow import Builder
from app.engine.wh40k10e.battle.narrative_building_attacks import (
    building_attack_hints,
    building_shoot_hints,
)
from app.engine.wh40k10e.battle.narrative_expansion_rules import expansion_candidates
from app.engine.wh40k10e.battle.narrative_expansions import expansion_view
from app.engine.wh40k10e.battle.narrative_rules import deploy_suggestion
from app.engine.wh40k10e.battle.narrative_zones import support_fire_hint
from app.engine.wh40k10e.battle.objectives import control, control_levels
from app.engine.wh40k10e.battle.power_levels import may_declare
from app.engine.wh40k10e.battle.rules import decide, shock_tests_pending
from app.engine.wh40k10e.battle.setup import Seat, UnitSpec, other
from app.engine.wh40k10e.battle.state import (
    BattleState,
    Formation,
    Location,
    MoveMode,
    Stage,
    UnitState,
)
from app.engine.wh40k10e.battle.stratagems import CORE_STRATAGEMS, check_timing

__all__ = ["legal_actions", "render"]


def _seat(s: Seat | None) -> str | None:
    return None if s is None else str(s)


# What a unit's view takes from its spec alone, and from its own state alone, built once per
# spec and per unit state (both immutable: a changed unit is a new ``UnitState``, and most of a
# battle's units do not change from one version to the next) rather than on every render
# (issue 21: the write's answer, the other seat's refresh and every catch-up render each
# version; the sorted keywords and abilities were most of a unit's cost). Keyed by the object's
# identity through a weak reference: an entry leaves when its object is freed (its battle gone
# from every cache), so the tables hold the parts of the units alive and nothing more (issue
# 21, the soak's memory: holding their objects, the tables kept up to 4096 units of finished
# and evicted matches alive, growing until the bound emptied them); the bound is a backstop.
# Lists are copied out on every render, so no two views ever share a mutable value.
_PARTS_MAX = 4096


class _Ref(weakref.ref):  # type: ignore[type-arg]
    """A weak reference that knows its entry's key (the object's id)."""

    __slots__ = ("key",)
    key: int


class _Parts:
    """Object identity -> its part, while the object lives (see above); thread-safe."""

    __slots__ = ("_drop", "_items")

    def __init__(self) -> None:
        items: dict[int, tuple[_Ref, tuple[Any, ...]]] = {}
        self._items = items

        def drop(ref: _Ref) -> None:
            # Called while the object is being freed, before its id can be reused: the entry
            # at that id, if it is still this reference's, is the freed object's.
            found = items.get(ref.key)
            if found is not None and found[0] is ref:
                items.pop(ref.key, None)

        self._drop = drop

    def get(self, obj: object) -> tuple[Any, ...] | None:
        found = self._items.get(id(obj))
        if found is not None and found[0]() is obj:
            return found[1]
        return None

    def put(self, obj: object, part: tuple[Any, ...]) -> None:
        if len(self._items) >= _PARTS_MAX:
            self._items.clear()
        ref = _Ref(obj, self._drop)
        ref.key = id(obj)
        self._items[ref.key] = (ref, part)

    def __len__(self) -> int:
        return len(self._items)

    def clear(self) -> None:
        self._items.clear()


_spec_parts = _Parts()
_state_parts = _Parts()


def _spec_part(spec: UnitSpec) -> tuple[Any, ...]:
    found = _spec_parts.get(spec)
    if found is not None:
        return found
    part: tuple[Any, ...] = (
        spec.name,
        spec.datasheet,
        tuple(sorted(spec.keywords)),
        tuple(sorted(str(a) for a in spec.abilities)),
        spec.points,
        spec.oc,
        spec.leadership,
        spec.wounds,
        tuple(spec.max_wounds),
    )
    _spec_parts.put(spec, part)
    return part


def _state_part(u: UnitState) -> tuple[Any, ...]:
    found = _state_parts.get(u)
    if found is not None:
        return found
    part: tuple[Any, ...] = (
        str(u.owner),
        len(u.wounds),
        u.models_alive,
        tuple(u.wounds),
        u.alive,
        str(u.location),
        None if u.reserve is None else str(u.reserve),
        None if u.move is None else str(u.move),
        tuple(sorted(u.targets)),
        tuple(sorted(u.attacked)),
        tuple(_weapons_used_items(u)),
        tuple(sorted(str(e) for e in u.effects)),
    )
    _state_parts.put(u, part)
    return part


def _unit_view(state: BattleState, unit_id: str) -> JsonObject:
    u = state.units[unit_id]
    (name, datasheet, keywords, abilities, points, oc, leadership, wounds, max_wounds) = _spec_part(
        state.specs[unit_id]
    )
    (
        owner,
        models,
        models_alive,
        u_wounds,
        alive,
        location,
        reserve,
        move,
        targets,
        attacked,
        weapons_used,
        effects,
    ) = _state_part(u)
    return {
        "id": u.id,
        "owner": owner,
        "name": name,
        "datasheet": datasheet,
        "keywords": list(keywords),
        "abilities": list(abilities),
        "points": points,
        "oc": oc,
        "leadership": leadership,
        "wounds_per_model": wounds,
        "max_wounds": list(max_wounds),
        "models": models,
        "models_alive": models_alive,
        "wounds": list(u_wounds),
        "destroyed": not alive,
        "location": location,
        "reserve": reserve,
        "embarked_in": u.embarked_in,
        "leader": u.leader,
        "bodyguard": u.bodyguard,
        "hover": u.hover,
        "battle_shocked": u.battle_shocked,
        # these two read other units (the group's losses, who is still alive): every render
        "below_half_strength": bool(alive) and state.below_half_strength(unit_id),
        "engaged_with": list(state.engaged_units(unit_id)) if alive else [],
        "move": move,
        "arrived": u.arrived,
        "cannot_charge": u.cannot_charge,
        "charge_moved": u.charge_moved,
        "fights_first": u.charge_bonus,
        "shot": u.shot,
        "fought": u.fought,
        "charge_declared": u.charge_declared,
        "targets": list(targets),
        "attacked": list(attacked),
        "weapons_used": [{"unit": p, "weapon": w, "models": n} for p, w, n in weapons_used],
        "all_weapons_used": u.all_weapons_used,
        "effects": list(effects),
        "must_arrive": u.must_arrive,
        "transport_destroyed": u.transport_destroyed,
    }


def _weapons_used_items(u: UnitState) -> list[tuple[str, str, int]]:
    """The weapons the unit has attacked with this phase, models summed per (part, weapon)."""
    used: dict[tuple[str, str], int] = {}
    for w in u.weapons_used:
        used[w.unit, w.weapon] = used.get((w.unit, w.weapon), 0) + w.models
    return [(p, w, n) for (p, w), n in sorted(used.items())]


def render(state: BattleState, viewer: Viewer) -> JsonObject:
    """The state as ``viewer`` (``"A"``, ``"B"`` or ``None`` for a spectator) may see it."""
    if state.setup is None:
        return {"rule_system": "wh40k-10e", "viewer": viewer, "stage": str(state.stage)}
    setup = state.setup
    mission = setup.mission
    pos = state.position
    players: JsonObject = {}
    for seat in (Seat.A, Seat.B):
        p = state.players[seat]
        players[str(seat)] = {
            "army": setup.armies[seat].name,
            "faction": setup.armies[seat].faction,
            "cp": p.cp,
            "vp": p.vp,
            "extra_cp_this_round": p.extra_cp_this_round,
            "formation_submitted": p.formation_submitted,
            "stratagems_used_this_phase": sorted(p.used_this_phase),
            "overwatch_used_this_turn": p.overwatch_this_turn,
            "result": p.result,
            "dispute": p.dispute,
        }
    levels = control_levels(state)
    live = control(state)
    objectives: list[JsonValue] = []
    for m in state.markers.values():
        presence = state.presence.get(m.id, {})
        objectives.append(
            {
                "id": m.id,
                "x": m.x,
                "y": m.y,
                "placed_by": _seat(m.placed_by),
                "controller": _seat(m.controller),
                "controller_now": _seat(live[m.id]),
                "levels": {str(s): v for s, v in levels[m.id].items()},
                "presence": {str(s): to_json(v) for s, v in presence.items()},
            }
        )
    view: JsonObject = {
        "rule_system": "wh40k-10e",
        "viewer": viewer,
        "mission": {
            "id": mission.id,
            "name": dict(mission.name),
            "battle_size": setup.battle_size,
            "points": setup.points_limit,
            "rounds": mission.length.rounds,
        },
        "stage": str(state.stage),
        "setup_step": _setup_step(state),
        "next_seat": _seat(state.next_seat),
        "roll_offs": {k: str(v) for k, v in state.roll_offs.items()},
        "attacker": _seat(state.attacker),
        "first_player": _seat(state.first_player),
        "round": state.round,
        "active": _seat(state.active),
        "phase": None if pos is None else pos.phase,
        "step": None if pos is None else pos.step,
        "players": players,
        "units": [_unit_view(state, i) for i in state.units],
        "objectives": objectives,
        "charge": to_json(state.charge),
        "fight": _fight_view(state),
        "reaction_window": _seat(state.window),
        "trigger": to_json(state.trigger),
        "pending": {
            "battle_shock_tests": list(shock_tests_pending(state)),
            "forced_disembark": sorted(
                u.id for u in state.units.values() if u.transport_destroyed and u.alive
            ),
            "aircraft_must_arrive": sorted(
                u.id for u in state.units.values() if u.must_arrive is not None and u.alive
            ),
            "deadly_demise": list(dict.fromkeys(state.demises)),
            # the end-of-turn coherency check: who must still confirm, and the units named
            "coherency": [str(x) for x in state.coherency],
            "coherency_units": [u for x in state.coherency for u in state.coherency_units(x)],
        },
        "result": to_json(state.result),
        "formations_revealed": state.revealed,
    }
    if state.narrative is not None:
        view["narrative"] = narrative_view(state, viewer)
    if state.setup is not None and state.setup.options.combat_zone is not None:
        view["combat_zone"] = {
            "id": state.setup.options.combat_zone,
            "mysterious_objectives": dict(sorted(state.mysterious.items())),
        }
    if state.revealed:
        view["formations"] = {str(s): to_json(f) for s, f in state.formations.items()}
    elif viewer is not None and Seat(viewer) in state.formations:
        view["my_formation"] = to_json(state.formations[Seat(viewer)])
    return view


def _setup_step(state: BattleState) -> JsonValue:
    if state.setup is None or state.stage in (Stage.BATTLE, Stage.ENDED):
        return None
    if state.narrative is not None:
        return {"index": state.setup_index, "step": state.narrative.step, "purpose": None}
    step = state.setup.mission.sequence[state.setup_index]
    return {"index": state.setup_index, "step": step.step, "purpose": step.purpose}


def _fight_view(state: BattleState) -> JsonValue:
    if state.fight is None:
        return None
    step, seat = fight_turn(state)
    return {
        "step": str(step),
        "selects_next": _seat(seat),
        "current": state.fight.current,
        "next_unit": state.fight.next_unit,
    }


# -- legal actions ---------------------------------------------------------------------------


def _ok(state: BattleState, cmd: Tagged, seat: Seat) -> bool:
    try:
        decide(state, cmd, str(seat), Roller(0))
    except Refusal:
        return False
    return True


def _hint(cmd: Tagged, **choices: JsonValue) -> JsonObject:
    out: JsonObject = {"command": COMMAND_CODEC.encode(cmd)}
    if choices:
        out["choices"] = choices
    return out


def _heads(state: BattleState, seat: Seat) -> list[str]:
    return sorted({head(state, u.id) for u in state.units_of(seat) if u.alive})


def legal_actions(state: BattleState, seat: Seat) -> list[JsonObject]:
    """Commands ``seat`` may send now (the free-form reports are always available in battle:
    report_objective, report_engagement, gain_command_point, remove_models, concede)."""
    if state.setup is None:
        return []
    out: list[JsonObject] = []

    def offer(candidates: Iterable[Tagged]) -> None:
        for c in candidates:
            if _ok(state, c, seat):
                out.append(_hint(c))

    stage = state.stage
    mine = _heads(state, seat)
    if stage is Stage.ROLL_OFF:
        offer([RollOff()])
        if state.narrative is not None:  # e.g. Lightning Reaction before the first turn
            out.extend(narrative_actions(state, seat))
    elif stage is Stage.PLACE_OBJECTIVES:
        offer([PlaceObjective()])
    elif stage is Stage.DECLARE_FORMATIONS:
        out.append(_hint(DeclareFormations(formation=state.formations.get(seat, Formation()))))
    elif stage is Stage.DEPLOY:
        offer(DeployUnit(u) for u in mine)
    elif stage is Stage.SCOUTS:
        offer([*(ScoutMove(u) for u in mine), EndScouts()])
    elif stage is Stage.NARRATIVE:
        out.extend(narrative_actions(state, seat))
    elif stage is Stage.ENDED:
        offer([ConfirmResult()])
        if state.players[seat].result != "disputed":
            out.append(_hint(DisputeResult(reason="...")))
    elif stage is Stage.BATTLE:
        out.extend(_battle_actions(state, seat, mine))
        if state.narrative is not None:
            out.extend(narrative_actions(state, seat))
    return out


def _battle_actions(
    state: BattleState,
    seat: Seat,
    mine: list[str],
) -> list[JsonObject]:
    out: list[JsonObject] = []

    def ok(cmd: Tagged) -> bool:
        return _ok(state, cmd, seat)

    if state.coherency:  # the end of the turn: nothing else until it is confirmed
        if seat in state.coherency:
            out.append(_hint(ConfirmCoherency(), units=state.coherency_units(seat)))
        return out
    enemies = [
        u for u in _heads(state, Seat.B if seat is Seat.A else Seat.A) if state.on_battlefield(u)
    ]
    simple: list[Tagged] = [EndPhase(), Pass()]
    simple += [BattleShockTest(u) for u in mine]
    simple += [Move(u, m) for u in mine for m in MoveMode]
    # announcing a move first lets the opponent Fire Overwatch as it starts [L3422-3444]
    simple += [StartMove(u, m) for u in mine for m in MoveMode if m is not m.REMAIN_STATIONARY]
    simple += [
        Disembark(u.id) for u in state.units_of(seat) if u.location is Location.EMBARKED and u.alive
    ]
    simple += [
        DisembarkFromDestroyedTransport(u.id)
        for u in state.units_of(seat)
        if u.transport_destroyed and u.alive
    ]
    simple += [
        ArriveFromReserves(u.id)
        for u in state.units_of(seat)
        if u.location is Location.RESERVES and u.alive
    ]
    if state.demises and state.units[state.demises[0]].owner is seat:
        # the units within 6" are the player's to name: every unit on the battlefield may be
        others = [
            u for u in _heads(state, Seat.A) + _heads(state, Seat.B) if state.on_battlefield(u)
        ]
        out.append(_hint(DeadlyDemise(state.demises[0], ()), units=others))
    if state.charge is not None:
        simple += [
            CompleteCharge(state.charge.unit, True),
            CompleteCharge(state.charge.unit, False),
        ]
    simple += [Consolidate(u) for u in mine]
    for c in simple:
        if ok(c):
            out.append(_hint(c))
    for u in mine:
        targets = [t for t in enemies if shoot_target_problem(state, u, t) is None]
        if targets and ok(Shoot(u, (targets[0],))):
            out.append(_hint(Shoot(u, ()), targets=list(targets)))
        chargeable = [t for t in enemies if charge_target_problem(state, u, t) is None]
        if chargeable and ok(DeclareCharge(u, (chargeable[0],))):
            out.append(_hint(DeclareCharge(u, ()), targets=list(chargeable)))
        if ok(Fight(u)):
            targets = [
                e for e in state.engaged_units(u) if melee_target_problem(state, u, e) is None
            ]
            out.append(_hint(Fight(u), targets=targets))
    out.extend(_stratagem_actions(state, seat, mine, enemies))
    support = support_fire_hint(state, seat)  # a combat zone's Support fire (ruling 94)
    if support is not None and ok(support):
        out.append(_hint(support))
    return out


def _stratagem_actions(
    state: BattleState, seat: Seat, mine: list[str], enemies: list[str]
) -> list[JsonObject]:
    out: list[JsonObject] = []
    reserves = [u.id for u in state.units_of(seat) if u.location is Location.RESERVES and u.alive]
    for spec in CORE_STRATAGEMS:
        b = Builder(state, seat, Roller(0))
        try:
            check_timing(b, spec)
        except Refusal:
            continue
        if spec.effect == "reroll":
            cmd = UseStratagem(spec.id)
            if _ok(state, cmd, seat):
                out.append(_hint(cmd))
            continue
        units = reserves if spec.effect == "arrive" else mine
        foes: list[str | None] = [None]
        if spec.enemy is not None:
            foes = [state.trigger.unit] if state.trigger is not None else []
            if spec.effect in ("grenade", "tank_shock"):
                foes = list(enemies)
        for u in units:
            for e in foes:
                strength = 30 if spec.effect == "tank_shock" else None
                cmd = UseStratagem(spec.id, unit=u, enemy=e, strength=strength)
                if _ok(state, cmd, seat):
                    out.append(_hint(UseStratagem(spec.id, unit=u, enemy=e)))
    return out


# -- narrative missions ----------------------------------------------------------------------


def narrative_view(state: BattleState, viewer: Viewer) -> JsonObject:
    """The narrative mission as ``viewer`` may see it: the token-to-unit mapping only for the
    seat that placed the tokens, each token's unit only once revealed."""
    n = state.narrative
    assert n is not None
    out: JsonObject = {
        "pack": n.pack,
        "mission": n.mission.id,
        "evaluator": str(n.mission.evaluator),
        # the match's settings, as recorded at creation (rulings 1-2, 84)
        "value_measure": n.value_measure,
        "troops_keywords": list(n.rules.sentries.troops_keywords),
        "power_levels": dict(n.power),  # public, as the armies are (value measure "power")
        "step": n.step,
        "attacker": _seat(state.attacker),
        "deployer": _seat(n.deployer),
        "tokens": [
            {"token": t, "revealed": t in n.revealed, "unit": n.revealed.get(t)}
            for t in n.token_ids
        ],
        "decoys_allowed": n.decoys_allowed,
        "reserves": sorted(n.reserves),
        "grounded": sorted(n.grounded),
        "steady": sorted(n.steady),
        "entrenched": sorted(n.entrenched),
        "arrived_now": list(n.arrived_now),
        "bombarded": n.bombarded,
        "alarm": {
            "state": str(n.alarm.state),
            "cause": None if n.alarm.cause is None else str(n.alarm.cause),
            "round": n.alarm.round,
        },
        "dawn_raid_rounds": n.dawn_raid_rounds,
        "destroyed_attacker_units": list(n.down),
        "destructions": n.destructions,
        "returned": list(n.returned),
        "sabotage_attempts": [[u, r] for u, r in n.attempts],
        "hiding_places": list(n.places),
        "searched": list(n.searched),
        "spy_found_at": n.spy_found_at,
        "spy_alive": n.spy_alive,
        "escaped": list(n.escaped),
        "first_line": list(n.first_line),
        "second_line": list(n.second_line),
        "stratagems_used": [
            {"seat": str(s), "stratagem": i, "cp": cp, "round": r} for s, i, cp, r in n.spent
        ],
    }
    if viewer is not None and n.deployer is not None and Seat(viewer) is n.deployer and n.tokens:
        out["my_tokens"] = dict(n.tokens.items())
    if n.expansion is not None:
        out["expansion"] = expansion_view(state, n.expansion, viewer)
    return out


def _mission_targets(state: BattleState, seat: Seat, strat: str) -> list[str]:
    """What a mission Stratagem that names something may name, to offer it with a first
    target the rules accept (the page lists the others)."""
    n = state.narrative
    assert n is not None
    alive = [u.id for u in state.units.values() if state.on_battlefield(u.id)]
    if strat in ("booby-traps", "flank-reinforcements", "forced-march"):
        return list(n.arrived_now)
    if strat == "proximity-mines":
        return [u for u in alive if state.units[u].owner is not seat]
    if strat == "entrenchments":
        return [u.id for u in state.units_of(seat) if u.alive]
    if strat == "spies":
        return [t for t in n.token_ids if t not in n.revealed]
    if strat == "beacon-scan":
        return [p for p in n.places if p not in n.searched]
    if strat in ("rapid-reinforcements", "rapid-reaction", "delayed-reserves"):
        return sorted(n.reserves)
    if strat == "extra-explosives":
        return sorted({u for u, _ in n.attempts})
    if strat == "covered-advance":  # one of yours yet to move (ruling 95)
        return [
            u.id
            for u in state.units_of(seat)
            if state.on_battlefield(u.id) and u.alive and u.move is None
        ]
    if strat in ("sustained-bombardment", "intensive-bombardment", "foxholes", "night-vision"):
        return alive
    return []


def narrative_actions(state: BattleState, seat: Seat) -> list[JsonObject]:
    """What a narrative mission offers ``seat`` now (set-up steps and battle commands)."""
    n = state.narrative
    assert n is not None
    out: list[JsonObject] = []
    pending = sorted(
        {state.group(u.id)[0] for u in state.units_of(seat) if u.location is Location.TO_DEPLOY}
    )
    candidates: list[Tagged] = []
    if may_declare(state):  # Power Level: entered (or corrected) before the roles are chosen
        units = [u.id for u in state.units_of(seat)]
        entered = {u: n.power[u] for u in units if u in n.power}
        out.append(_hint(DeclarePowerLevels(levels=entered), units=units))
    if state.stage is Stage.NARRATIVE and state.next_seat is seat:
        if n.step == "hidden_deployment":
            tokens = {str(i + 1): u for i, u in enumerate(pending)}
            out.append(_hint(PlaceTokens(tokens=tokens), units=list(pending)))
        elif n.step == "preliminary_bombardment":
            candidates.append(Bombard())
        else:
            out.append(_hint(deploy_suggestion(state, seat), units=list(pending)))
    # in the bombardment's step, or at Ambush's first-turn roll-off while the Attacker may still
    # buy one (ruling 40): the rules decide, as for every candidate
    candidates.append(GoToGround())
    if state.stage is Stage.BATTLE:
        candidates += [ReserveRoll(u) for u in sorted(n.reserves)]
        candidates += [AssaultReturn(), ReportSpyKilled(), ReportSpyUnplaced()]
        candidates += [RaiseAlarm(c) for c in ("detected", "sentry_survived_fight")]
        mine = sorted(u.id for u in state.units_of(seat) if state.on_battlefield(u.id))
        candidates += [AttemptSabotage(u) for u in mine]
        candidates += [CullUnit(u) for u in mine]
        candidates += [EscapeUnit(u) for u in mine]
        for place in n.places:
            candidates += [SearchHidingPlace(u, place) for u in mine[:1]]
        candidates.append(ReportZones())
    for strat in n.mission.stratagems:
        cp = None if strat.cost.kind == "fixed" else strat.cost.min
        hinted = False
        for target in _mission_targets(state, seat, strat.id):
            cmd = UseMissionStratagem(strat.id, cp, target)
            try:
                decide(state, cmd, str(seat), Roller(0))
            except Refusal as refusal:
                if refusal.code != "bad_command":  # not now, whatever it names
                    break
                continue
            out.append(_hint(cmd))  # offered with the first target it accepts
            hinted = True
            break
        if not hinted:
            candidates.append(UseMissionStratagem(strat.id, cp))
    if n.expansion is not None:
        candidates += expansion_candidates(state, n.expansion, seat)
        # the match's attacks on and by buildings (ruling 91): their weapons are the page's
        out += [_hint(c) for c in building_attack_hints(state, seat)]
        shots = building_shoot_hints(state, seat)
        if shots:  # one hint: the guns and the targets are the form's choices
            profiles = {w.id: w for w in n.expansion.expansion.weapons}
            guns = [f"{c.building}|{c.weapon}" for c in shots]
            near: dict[str, JsonValue] = {
                f"{c.building}|{c.weapon}": profiles[c.weapon].min_range
                for c in shots
                if c.weapon in profiles and profiles[c.weapon].min_range is not None
            }
            foes: list[JsonValue] = [
                u for u in _heads(state, other(seat)) if state.on_battlefield(u)
            ]
            out.append(_hint(shots[0], guns=list[JsonValue](guns), targets=foes, min_range=near))
    for c in candidates:
        if _ok(state, c, seat):
            out.append(_hint(c))
    return out
