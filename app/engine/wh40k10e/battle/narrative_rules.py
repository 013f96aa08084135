"""Decisions of the narrative missions (see :mod:`.narrative`): their set-up steps, their
commands in battle and their victory evaluation. Every handler refuses with a coded refusal;
every mechanic and number comes from ``app.engine.narrative8e`` and the pack recorded at
creation."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

from app.engine.match.codec import Tagged
from app.engine.match.dice import Roll, take_roll
from app.engine.narrative8e.battle import AlarmCause, AlarmState, may_cull, reserve_roll
from app.engine.narrative8e.objectives import Sabotage
from app.engine.narrative8e.pack import Evaluator, ReserveMode, Side
from app.engine.narrative8e.setup import (
    BombardmentTarget,
    HiddenDeployment,
    NarrativeError,
    Player,
    choose_roles,
    first_turn,
    preliminary_bombardment,
)
from app.engine.narrative8e.victory import (
    BlitzFacts,
    EscapeFacts,
    Facts,
    LastStandFacts,
    PatrolFacts,
    RescueFacts,
    SabotageFacts,
    evaluate,
)
from app.engine.narrative8e.zones import fog_of_war_delayed
from app.engine.roller import DieRecord
from app.engine.wh40k10e.battle import narrative_expansion_rules as expansion
from app.engine.wh40k10e.battle import narrative_skies as skies
from app.engine.wh40k10e.battle import narrative_zones
from app.engine.wh40k10e.battle.commands import (
    AssaultReturn,
    AttemptSabotage,
    Bombard,
    CullUnit,
    DeployForces,
    EscapeUnit,
    GoToGround,
    PlaceTokens,
    RaiseAlarm,
    ReportSpyKilled,
    ReportSpyUnplaced,
    ReportZones,
    ReserveRoll,
    ResolveAttack,
    SearchHidingPlace,
    UseMissionStratagem,
)
from app.engine.wh40k10e.battle.errors import Code, refuse
from app.engine.wh40k10e.battle.events import (
    AttackResolved,
    BattleEnded,
    ChargeDeclared,
    FormationDeclared,
    UnitArrived,
    UnitMoved,
    UnitsDestroyed,
    UnitSelectedToFight,
    UnitSelectedToShoot,
)
from app.engine.wh40k10e.battle.flow import (
    Builder,
    allocate,
    end_battle,
    end_phase,
    need_active,
    need_alive,
    need_battle,
    need_own,
    need_phase,
    need_unit,
    start_battle,
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
    seat_of_side,
    side_of,
)
from app.engine.wh40k10e.battle.narrative_guards import actor_side as _side
from app.engine.wh40k10e.battle.narrative_guards import attacker as _attacker
from app.engine.wh40k10e.battle.narrative_guards import need_narrative as _n
from app.engine.wh40k10e.battle.narrative_zones import zone_of
from app.engine.wh40k10e.battle.power_levels import (
    POWER_COMMANDS,
    army_value,
    sentry_limit,
    unit_value,
)
from app.engine.wh40k10e.battle.setup import Seat, other
from app.engine.wh40k10e.battle.state import (
    BattleState,
    Location,
    ModelDamage,
    MoveMode,
    Phase,
    ReserveKind,
    Result,
    Stage,
)

__all__ = [
    "COMMANDS",
    "advance",
    "after_attack",
    "choose_attacker",
    "deploy_suggestion",
    "end_of_turn",
    "evaluate_end",
    "extra_turn_due",
    "fog_on_core_arrivals",
    "report_spy_unplaced",
]

DEPLOY_STEPS = {
    "attacker_deploys": Side.ATTACKER,
    "defender_deploys": Side.DEFENDER,
    "sentries": Side.DEFENDER,
    "defender_patrol": Side.DEFENDER,
    "attacker_patrol": Side.ATTACKER,
}
AUTOMATIC_STEPS = {"place_objective", "hiding_places"}
"""No map geometry in the app (rulings): the players mark the Objective and the hiding places
on their table; the tracker names the places 1..n."""
SET_UP_STRATAGEMS = {
    "decoys",
    "spies",
    "sustained-bombardment",
    "intensive-bombardment",
    "foxholes",
    "night-raider",
    "lightning-reaction",
    "known-ground",
    "reconnaissance-in-force",
    "extra-sentries",
}

BATTLE_TIMINGS = {
    "replacement_unit_arrives",
    "reserve_unit_arrives",
    "before_reserve_roll_own",
    "before_reserve_roll_enemy",
    "before_shooting_attack_resolved",
    "end_of_enemy_first_shooting_phase",
    "before_advance_roll",
    "enemy_unit_enters_first_line",
    "after_sabotage_attempt",
    "end_of_movement_phase",
    "end_of_game",
}
"""Pack timings that happen in the battle only (ruling 60)."""
SHOOTING_TIMINGS = {"before_shooting_attack_resolved"}
MOVEMENT_TIMINGS = {
    "reserve_unit_arrives",
    "before_reserve_roll_own",
    "before_reserve_roll_enemy",
    "before_advance_roll",
    "end_of_movement_phase",
}
OWN_TURN_TIMINGS = {
    "reserve_unit_arrives",
    "before_reserve_roll_own",
    "before_advance_roll",
    "end_of_movement_phase",
}


def _bad(message: str, **details: object) -> Exception:
    return refuse(Code.BAD_COMMAND, message)


def _heads_to_deploy(s: BattleState, seat: Seat) -> list[str]:
    heads = {s.group(u.id)[0] for u in s.units_of(seat) if u.location is Location.TO_DEPLOY}
    return sorted(heads)


def _value(s: BattleState, seat: Seat) -> int:
    return army_value(s, seat)  # points, or Power Level (rulings 1, 85)


# -- set-up flow -----------------------------------------------------------------------------


def advance(b: Builder) -> None:
    """The next narrative set-up step that needs a player, or the battle."""
    from app.engine.wh40k10e.battle.events import SetupStepStarted

    n = _n(b)
    index = b.state.setup_index + 1 if b.state.stage is not Stage.CREATED else 0
    while index < len(n.steps):
        step = n.steps[index]
        s = b.state
        if step == "choose_attacker":
            b.emit(SetupStepStarted(index, Stage.ROLL_OFF, purpose=step))
            return
        if step == "declare_formations":
            b.emit(SetupStepStarted(index, Stage.DECLARE_FORMATIONS, purpose=step))
            return
        if step == "first_turn":
            b.emit(SetupStepStarted(index, Stage.ROLL_OFF, purpose=step))
            return
        attacker = s.attacker
        assert attacker is not None
        if step == "hidden_deployment":
            side = (
                Side.ATTACKER if n.mission.rules.hidden_deployment == "reversed" else Side.DEFENDER
            )
            seat = seat_of_side(attacker, side)
            if _heads_to_deploy(s, seat):
                b.emit(SetupStepStarted(index, Stage.NARRATIVE, purpose=step, next_seat=seat))
                return
        elif step in DEPLOY_STEPS:
            seat = seat_of_side(attacker, DEPLOY_STEPS[step])
            if _heads_to_deploy(s, seat):
                b.emit(SetupStepStarted(index, Stage.NARRATIVE, purpose=step, next_seat=seat))
                return
        elif step == "reveal":
            for token in n.token_ids:
                if token not in n.revealed:
                    _reveal(b, token, forced=False)
        elif step == "preliminary_bombardment":
            b.emit(SetupStepStarted(index, Stage.NARRATIVE, purpose=step, next_seat=attacker))
            return
        index += 1
    start_battle(b)


def _reveal(b: Builder, token: str, *, forced: bool) -> None:
    n = _n(b)
    unit = n.tokens[token]
    group = b.state.group(unit) if unit is not None else ()
    b.emit(TokenRevealed(token, unit, group, forced))


def choose_attacker(b: Builder) -> None:
    """The ``choose_attacker`` roll-off step: the army worth more attacks, else a roll-off."""
    n = _n(b)
    va, vb = _value(b.state, Seat.A), _value(b.state, Seat.B)
    start = len(b.roller.records)
    try:
        choice = choose_roles(n.mission, va, vb, b.roller)
    except NarrativeError as exc:
        raise refuse(Code.BAD_COMMAND, str(exc)) from None
    roll = take_roll(b.roller, start) if choice.roll_off is not None else None
    seat = Seat.A if choice.attacker is Player.A else Seat.B
    b.emit(RolesChosen(seat, choice.reason, (va, vb), roll))
    advance(b)


def decide_first_turn(b: Builder) -> None:
    n = _n(b)
    if expansion.firestorm_pending(b.state):
        raise refuse(Code.WRONG_STEP, "Planetstrike: the Attacker's Firestorm Attacks come first")
    attacker = _attacker(b)
    defender = other(attacker)
    known = None
    if n.times_used(attacker, "known-ground"):
        known = Side.ATTACKER
    elif n.times_used(defender, "known-ground"):
        known = Side.DEFENDER
    lightning = bool(n.times_used(defender, "lightning-reaction"))
    start = len(b.roller.records)
    try:
        result = first_turn(n.mission, b.roller, known_ground=known, lightning_reaction=lightning)
    except NarrativeError as exc:
        raise refuse(Code.BAD_COMMAND, str(exc)) from None
    roll = take_roll(b.roller, start) if result.dice else None
    reason = str(n.mission.first_turn) + (" (stolen)" if result.stolen else "")
    b.emit(FirstTurnDecided(seat_of_side(attacker, result.first), reason, roll))
    advance(b)


def _need_step(b: Builder, *steps: str) -> NarrativeState:
    n = _n(b)
    if b.state.stage is not Stage.NARRATIVE or n.step not in steps:
        raise refuse(Code.WRONG_STAGE, f"this is done in the {'/'.join(steps)} step, not {n.step}")
    if b.state.next_seat is not b.actor:
        raise refuse(Code.NOT_YOUR_CHOICE, "it is your opponent's turn to do this")
    return n


def _check_reserves(b: Builder, n: NarrativeState, reserves: Iterable[str]) -> None:
    reserves = tuple(reserves)
    policy = n.mission.reserve_policy(_side(b))
    if reserves and policy.mode is ReserveMode.NONE:
        raise refuse(
            Code.BAD_COMMAND, "in this mission your units may not arrive later: deploy them all"
        )


def _place_tokens(b: Builder, cmd: PlaceTokens) -> None:
    n = _need_step(b, "hidden_deployment")
    heads = _heads_to_deploy(b.state, b.actor)
    for u in cmd.reserves:
        if u not in heads:
            raise refuse(Code.BAD_COMMAND, f"{u!r} is not one of your units to set up")
    deploying = [u for u in heads if u not in cmd.reserves]
    if not expansion.deploy_check(b, _side(b), tuple(deploying)):
        _check_reserves(b, n, cmd.reserves)
    hd = HiddenDeployment(Side.DEFENDER, decoys_allowed=n.decoys_allowed)
    try:
        hd.place(deploying, dict(cmd.tokens))
    except NarrativeError as exc:
        raise refuse(Code.BAD_COMMAND, f"hidden deployment: {exc}") from None
    b.emit(TokensPlaced(b.actor, dict(cmd.tokens)), audience=(str(b.actor),))
    b.emit(TokensLaid(b.actor, tuple(sorted(cmd.tokens)), tuple(cmd.reserves)))
    if expansion.deploy_check(b, _side(b), ()):
        expansion.planetfall(b, tuple(cmd.reserves))
    advance(b)


def _deploy_forces(b: Builder, cmd: DeployForces) -> None:
    n = _need_step(b, *DEPLOY_STEPS)
    heads = _heads_to_deploy(b.state, b.actor)
    named = list(cmd.units) + list(cmd.reserves)
    if sorted(named) != heads:
        raise refuse(
            Code.BAD_COMMAND,
            "name every unit you still have to set up once, in units or reserves: "
            + ", ".join(heads),
        )
    side = _side(b)
    # Planetary Assault (rulings 66): the Attacker sets up nothing, whatever the scenario's
    # reserve and patrol rules
    assault = expansion.deploy_check(b, side, tuple(cmd.units))
    if not assault:
        _check_reserves(b, n, cmd.reserves)
    key = side.value
    troops = n.rules.sentries.troops_keywords
    if n.step in ("defender_patrol", "attacker_patrol") and not assault:
        count = n.mission.deployment_counts.get(key, len(cmd.units))
        if side is Side.ATTACKER and n.times_used(b.actor, "reconnaissance-in-force"):
            count += 1
        if len(cmd.units) != min(count, len(heads)):
            raise refuse(Code.BAD_COMMAND, f"your patrol is {count} units")
        need = n.mission.deployment_counts.get(f"{key}_troops", 0)
        have = sum(1 for u in cmd.units if any(b.state.any_keyword(u, k) for k in troops))
        if have < need:
            raise refuse(
                Code.BAD_COMMAND, f"your patrol needs {need} unit(s) with {' or '.join(troops)}"
            )
    if n.step == "sentries":
        rule = n.rules.sentries
        allowed = 1 + n.times_used(b.actor, "extra-sentries")
        if not 1 <= len(cmd.units) <= allowed:
            raise refuse(Code.BAD_COMMAND, f"set up {allowed} sentry unit(s)")
        for u in cmd.units:
            spec = b.state.specs[u]
            limit, measure = sentry_limit(n)
            if spec.models > rule.max_models or unit_value(b.state, u) > limit:
                raise refuse(
                    Code.BAD_COMMAND,
                    f"{spec.name}: sentries are up to {rule.max_models} models and "
                    f"{limit} {measure}",
                )
    groups = tuple(i for u in cmd.units for i in b.state.group(u))
    rgroups = tuple(i for u in cmd.reserves for i in b.state.group(u))
    b.emit(ForcesDeployed(b.actor, groups, rgroups))
    if assault:
        expansion.planetfall(b, rgroups)
    advance(b)


def deploy_suggestion(s: BattleState, seat: Seat) -> DeployForces:
    """A ``deploy_forces`` that ``_deploy_forces`` accepts in the current step, offered in the
    legal actions: every unit still to set up, except in the sentries step (as many sentries as
    allowed, the first that fit the sentry limits; the rest in Reserve) and the patrol steps
    (the patrol's size, the Troops it needs first; the rest in Reserve)."""
    n = s.narrative
    assert n is not None
    assert s.attacker is not None
    heads = _heads_to_deploy(s, seat)
    side = side_of(s.attacker, seat)
    if n.step == "sentries":
        rule = n.rules.sentries
        allowed = 1 + n.times_used(seat, "extra-sentries")
        fit = [
            u
            for u in heads
            if s.specs[u].models <= rule.max_models and unit_value(s, u) <= sentry_limit(n)[0]
        ]
        units = fit[:allowed]
    elif n.step in ("defender_patrol", "attacker_patrol"):
        key = side.value
        count = n.mission.deployment_counts.get(key, len(heads))
        if side is Side.ATTACKER and n.times_used(seat, "reconnaissance-in-force"):
            count += 1
        troops = n.rules.sentries.troops_keywords
        troop = [u for u in heads if any(s.any_keyword(u, k) for k in troops)]
        units = (troop + [u for u in heads if u not in troop])[: min(count, len(heads))]
    else:
        return DeployForces(units=tuple(heads))
    return DeployForces(
        units=tuple(sorted(units)), reserves=tuple(u for u in heads if u not in units)
    )


def _go_to_ground(b: Builder, cmd: GoToGround) -> None:
    n = _n(b)
    if not _bombardment_ahead(b.state, n):
        raise refuse(Code.WRONG_STAGE, "go to ground before the preliminary bombardment")
    if _side(b) is not Side.DEFENDER:
        raise refuse(Code.NOT_YOUR_CHOICE, "only the Defender's units are bombarded")
    for u in cmd.units:
        need_own(b, u)
        if not b.state.all_have_keyword(u, "INFANTRY"):
            raise refuse(Code.BAD_COMMAND, f"{b.state.specs[u].name}: only INFANTRY go to ground")
    b.emit(GoToGroundDeclared(tuple(cmd.units)))


def _bombardment_ahead(s: BattleState, n: NarrativeState) -> bool:
    """A Preliminary Bombardment may still come before the first turn: the scenario's own step,
    or (Ambush) the first-turn roll-off where the Attacker may buy one [L241] (ruling 58)."""
    if s.stage is Stage.NARRATIVE and n.step == "preliminary_bombardment":
        return True
    has_strat = any(st.id == "preliminary-bombardment" for st in n.mission.stratagems)
    at_first_turn = s.stage is Stage.ROLL_OFF and n.step == "first_turn"
    return has_strat and at_first_turn and not n.bombarded


def _bombard(b: Builder, cmd: Bombard) -> None:
    n = _need_step(b, "preliminary_bombardment")
    run_bombardment(b, n)
    b.emit(BombardmentFinished())
    advance(b)


def run_bombardment(b: Builder, n: NarrativeState) -> None:
    attacker = _attacker(b)
    s = b.state
    targets = sorted(
        {s.group(u.id)[0] for u in s.units_of(other(attacker)) if s.on_battlefield(u.id)}
    )
    spent = set(n.aimed)
    for t in targets:
        target = BombardmentTarget(
            t,
            infantry=s.all_have_keyword(t, "INFANTRY"),
            go_to_ground=t in n.go_to_ground,
            hit_on=4 if (attacker, "intensive-bombardment", t) in spent else None,
            dice=3 if (attacker, "sustained-bombardment", t) in spent else 1,
            foxholes=(other(attacker), "foxholes", t) in spent,
        )
        start = len(b.roller.records)
        (hit,) = preliminary_bombardment(n.rules.bombardment, (target,), b.roller)
        roll = take_roll(b.roller, start)
        damage: tuple[ModelDamage, ...] = ()
        if hit.hit:
            fnp = b.feel_no_pain()
            damage = tuple(allocate(b.state, t, (), mortal_wounds=hit.mortal_wounds, ignores=fnp))
        b.emit(BombardmentResolved(t, roll, hit.hit, hit.mortal_wounds, damage, hit.went_to_ground))


# -- mission stratagems ----------------------------------------------------------------------


def _use_mission_stratagem(b: Builder, cmd: UseMissionStratagem) -> None:
    n = _n(b)
    s = b.state
    assert s.setup is not None
    from_expansion = expansion.expansion_stratagem(n, cmd.stratagem)
    try:
        strat = from_expansion or n.mission.stratagem(cmd.stratagem)
    except KeyError:
        raise refuse(
            Code.UNKNOWN_STRATAGEM, f"{n.mission.id} has no stratagem {cmd.stratagem!r}"
        ) from None
    side = _side(b)
    if strat.side is not Side.BOTH and strat.side is not side:
        raise refuse(Code.NOT_YOUR_CHOICE, f"{cmd.stratagem} is a {strat.side.value} stratagem")
    if not s.setup.options.battle_forged:
        raise refuse(Code.BAD_COMMAND, "mission stratagems need Battle-forged armies [L125]")
    cost = strat.cost
    amount = cost.cp if cmd.cp is None and cost.kind == "fixed" else cmd.cp
    if amount is None or not cost.allows(amount):
        raise refuse(
            Code.BAD_COMMAND, f"{cmd.stratagem} costs {cost.cp or f'{cost.min}-{cost.max}'} CP"
        )
    if amount > s.players[b.actor].cp:
        raise refuse(
            Code.NOT_ENOUGH_CP,
            f"{cmd.stratagem} costs {amount} CP; you have {s.players[b.actor].cp}",
        )
    if strat.once_per_battle and n.times_used(b.actor, strat.id):
        raise refuse(Code.BAD_COMMAND, f"{strat.id} is used once per battle")
    if from_expansion is not None:
        # the timings the missions share, then the expansion's own (rulings 64)
        if strat.timing in BATTLE_TIMINGS | {"after_deployment", "unit_setup_in_deployment"}:
            _timing_checks(b, n, strat.id, strat.timing, cmd.target)
        expansion.stratagem_timing(b, strat, cmd.target)
        target = expansion.public_target(strat, cmd.target)
        b.emit(MissionStratagemUsed(b.actor, strat.id, amount, s.round, target))
        expansion.after_stratagem(b, strat, amount, cmd.target)
        return
    _stratagem_timing(b, n, strat.id, cmd.target)
    b.emit(MissionStratagemUsed(b.actor, strat.id, amount, s.round, cmd.target))
    if strat.id == "spies":
        assert cmd.target is not None
        _reveal(b, cmd.target, forced=True)
    elif strat.id == "beacon-scan":
        assert cmd.target is not None
        _search(b, "", cmd.target, scan=True)
    elif strat.id == "preliminary-bombardment":
        run_bombardment(b, _n(b))
        b.emit(BombardmentFinished())
    elif strat.id in SLAYING_STRATAGEMS:
        assert cmd.target is not None
        _slay_on_dice(b, strat.id, _param(strat.params, "on", 6), cmd.target)
    elif strat.id == "iron-discipline":
        _iron_discipline(b, _param(strat.params, "on", 2))


SLAYING_STRATAGEMS = ("booby-traps", "proximity-mines")
"""A D6 per model of the enemy unit named, each 6 slays one [L185, L397] (rulings 71)."""
REPLACEMENT_STRATAGEMS = ("booby-traps", "flank-reinforcements", "forced-march")
"""Used as a replacement unit arrives (sustained assault) [L171, L185, L387]: they name a
unit set up again in this Movement phase."""


def _param(params: object, key: str, default: int) -> int:
    value = params.get(key, default) if isinstance(params, dict) else default
    return value if isinstance(value, int) and not isinstance(value, bool) else default


def _slay_on_dice(b: Builder, strat: str, on: int, target: str) -> None:
    """A D6 per model of ``target``'s unit (an Attached unit is one unit); each ``on``+ slays
    one model, which the match picks as the core rules allocate: a wounded model first, then
    the Bodyguard's models before the Leader's, in slot order (rulings 71)."""
    s = b.state
    group = s.group(target)
    models = sum(s.units[u].models_alive for u in group)
    start = len(b.roller.records)
    dice = b.roller.roll_many(models, 6, f"{strat}: {target}", stage="zone")
    slain = sum(1 for d in dice if d >= on)
    alive = [(u, slot, w) for u in group for slot, w in enumerate(s.units[u].wounds) if w > 0]
    wounded = [m for m in alive if m[2] < s.specs[m[0]].max_wounds[m[1]]]
    order = wounded + [m for m in alive if m not in wounded]
    damage = tuple(ModelDamage(u, slot, w) for u, slot, w in order[:slain])
    b.emit(StratagemDiceRolled(strat, target, take_roll(b.roller, start), slain, damage))


def _iron_discipline(b: Builder, on: int) -> None:
    """A D6 for each of the Defender's units that went to ground: on ``on``+ it acts normally
    in its first turn [L255] (rulings 58, 72)."""
    n = _n(b)
    units = tuple(
        sorted(
            u for u in n.grounded if b.state.units[u].owner is b.actor and b.state.units[u].alive
        )
    )
    start = len(b.roller.records)
    dice = b.roller.roll_many(len(units), 6, "iron discipline", stage="zone")
    steady = tuple(u for u, d in zip(units, dice, strict=True) if d >= on)
    b.emit(IronDisciplineRolled(units, take_roll(b.roller, start), steady))


def _stratagem_timing(b: Builder, n: NarrativeState, strat: str, target: str | None) -> None:
    """Refuse a mission stratagem outside its seed timing (rulings 39, 58-60)."""
    _timing_checks(b, n, strat, n.mission.stratagem(strat).timing, target)


def _timing_checks(
    b: Builder, n: NarrativeState, strat: str, timing: str, target: str | None
) -> None:
    s = b.state
    in_setup = s.stage in (Stage.NARRATIVE, Stage.ROLL_OFF, Stage.DECLARE_FORMATIONS)
    if (strat in SET_UP_STRATAGEMS or strat == "preliminary-bombardment") and not in_setup:
        raise refuse(Code.WRONG_STAGE, f"{strat} is used before the first turn")
    if timing in BATTLE_TIMINGS and s.stage is not Stage.BATTLE:
        raise refuse(Code.WRONG_STAGE, f"{strat} is used during the battle")
    if strat == "decoys" and (n.step != "hidden_deployment" or n.token_ids):
        raise refuse(Code.WRONG_STAGE, "decoys are added just before the tokens are placed")
    if strat == "spies" and (not n.token_ids or target not in n.token_ids or target in n.revealed):
        raise refuse(Code.BAD_COMMAND, "name a placed token that is not revealed yet")
    if strat in ("sustained-bombardment", "intensive-bombardment", "foxholes") and (
        n.step != "preliminary_bombardment" or target is None or target not in s.units
    ):
        raise refuse(Code.BAD_COMMAND, "name a unit, just before the bombardment")
    if (
        strat == "foxholes"
        and target is not None
        and (s.units[target].owner is not b.actor or not s.all_have_keyword(target, "INFANTRY"))
    ):
        # "one of your INFANTRY units" [L181] (ruling 90)
        raise refuse(Code.BAD_COMMAND, f"{strat}: name one of your INFANTRY units")
    if (
        strat in ("sustained-bombardment", "intensive-bombardment")
        and target is not None
        and s.units[target].owner is b.actor
    ):
        # the bombardment hits the enemy's units [L163, L379] (ruling 90)
        raise refuse(Code.BAD_COMMAND, f"{strat}: name an enemy unit")
    at_first_turn = s.stage is Stage.ROLL_OFF and n.step == "first_turn"
    if strat == "preliminary-bombardment" and (n.bombarded or not at_first_turn):
        raise refuse(Code.WRONG_STAGE, "after both sides deployed, before the first turn")
    if timing == "after_deployment" and not at_first_turn:
        # "immediately after deployment" [L233, L541]: once every unit is set up (and the
        # hidden tokens revealed), at the first-turn roll-off step (ruling 59)
        raise refuse(Code.WRONG_STAGE, f"{strat} is used after both sides have deployed")
    if strat in ("lightning-reaction", "known-ground") and not at_first_turn:
        # just after both sides deployed, before the first turn [L247]; just before who has
        # the first turn is determined [L327]: the first-turn roll-off step
        raise refuse(Code.WRONG_STAGE, f"{strat} is used just before the first turn is decided")
    if timing == "after_bombardment_resolved":
        # after the Attacker has resolved a Preliminary Bombardment [L255], for the units
        # that went to ground: never without one (ruling 58)
        if not n.bombarded or not in_setup:
            raise refuse(
                Code.WRONG_STAGE,
                f"{strat} is used after a Preliminary Bombardment, before the first turn",
            )
        if not n.grounded:
            raise refuse(Code.WRONG_STAGE, f"{strat}: none of your units went to ground")
    if timing == "after_defender_patrol" and n.step != "attacker_patrol":
        raise refuse(Code.WRONG_STAGE, f"{strat} is used after the Defender's patrol is set up")
    if timing == "before_sentries_deployed" and n.step != "sentries":
        raise refuse(Code.WRONG_STAGE, f"{strat} is used just before the sentries are set up")
    if timing == "after_sentries_deployed" and (not in_setup or _before(n, "sentries")):
        raise refuse(Code.WRONG_STAGE, f"{strat} is used after the sentries are set up")
    if timing == "unit_setup_in_deployment" and (
        s.stage is not Stage.NARRATIVE
        or n.step not in (*DEPLOY_STEPS, "hidden_deployment")
        or s.next_seat is not b.actor
    ):
        raise refuse(Code.WRONG_STAGE, f"{strat} is used as one of your units is set up")
    if timing in SHOOTING_TIMINGS and s.phase is not Phase.SHOOTING:
        raise refuse(Code.WRONG_PHASE, f"{strat} is used in the Shooting phase")
    if timing == "end_of_enemy_first_shooting_phase" and (
        s.phase is not Phase.SHOOTING or s.active is b.actor or s.round != 1
    ):
        # each player has one turn a round: the opponent's first Shooting phase is round 1's
        raise refuse(
            Code.WRONG_PHASE, f"{strat} is used at the end of your opponent's first Shooting phase"
        )
    if timing in MOVEMENT_TIMINGS and s.phase is not Phase.MOVEMENT:
        raise refuse(Code.WRONG_PHASE, f"{strat} is used in the Movement phase")
    if timing in OWN_TURN_TIMINGS and s.active is not b.actor:
        raise refuse(Code.NOT_YOUR_TURN, f"{strat} is used in your own turn")
    if timing == "before_reserve_roll_enemy" and s.active is b.actor:
        raise refuse(Code.NOT_YOUR_CHOICE, f"{strat} is used before your opponent's reserve roll")
    if strat == "extra-explosives" and not any(u == target for u, _ in n.attempts):
        raise refuse(Code.BAD_COMMAND, "Extra Explosives follows a sabotage attempt by that unit")
    if strat == "beacon-scan" and (target not in n.places or target in n.searched):
        raise refuse(Code.BAD_COMMAND, "name a hiding place not searched yet")
    if strat in REPLACEMENT_STRATAGEMS and (
        s.phase is not Phase.MOVEMENT or target is None or target not in n.arrived_now
    ):
        raise refuse(
            Code.BAD_COMMAND, f"{strat}: name a unit set up again by sustained assault this phase"
        )
    if strat in REPLACEMENT_STRATAGEMS and (strat, target) in n.arrival_uses:
        raise refuse(Code.BAD_COMMAND, f"{strat} is used once as that unit arrives")
    if strat == "proximity-mines":
        if target is None or target not in s.units or s.units[target].owner is b.actor:
            raise refuse(Code.BAD_COMMAND, f"{strat}: name the enemy unit that moved")
        if not s.on_battlefield(target) or not s.units[target].alive:
            raise refuse(Code.BAD_COMMAND, f"{strat}: the unit is not on the battlefield")
        group = set(s.group(target))
        if any(i == strat and t in group for _, i, t in n.aimed):
            # "the first time an enemy unit moves into" the First Line [L397]
            raise refuse(Code.BAD_COMMAND, f"{strat}: that unit has met the mines already")
    if (
        strat == "covered-advance"
        and target is not None
        and (
            target not in s.units
            or s.units[target].owner is not b.actor
            or not s.on_battlefield(target)
            or s.units[target].move is not None
        )
    ):
        # "just before the Advance roll of a unit" [L383]: one of yours yet to move (ruling 95)
        raise refuse(Code.BAD_COMMAND, f"{strat}: name one of your units about to Advance")
    if strat == "entrenchments" and (
        target is None or target not in s.units or s.units[target].owner is not b.actor
    ):
        raise refuse(Code.BAD_COMMAND, f"{strat}: name one of your units as it is set up")
    if strat in ("rapid-reinforcements", "rapid-reaction", "delayed-reserves"):
        if target is None or target not in n.reserves:
            raise refuse(Code.BAD_COMMAND, "name a unit in the mission's reserves")
        mine = s.units[target].owner is b.actor
        if strat == "delayed-reserves" and mine:
            raise refuse(Code.BAD_COMMAND, f"{strat}: name an enemy unit in Reserve")
        if strat != "delayed-reserves" and not mine:
            raise refuse(Code.BAD_COMMAND, f"{strat}: name one of your units in Reserve")


def _before(n: NarrativeState, step: str) -> bool:
    """The set-up has not passed ``step`` yet (it is the current step or a later one)."""
    return step in n.steps and n.step in n.steps[: n.steps.index(step) + 1]


# -- the alarm -------------------------------------------------------------------------------


def _has_alarm(n: NarrativeState) -> bool:
    return n.mission.reserve_policy(Side.DEFENDER).mode is ReserveMode.ALARM


def _raise(b: Builder, cause: AlarmCause) -> None:
    s = b.state
    active = s.active
    truncate = active is not None and active is s.attacker
    b.emit(AlarmChanged(AlarmState.RAISED, cause, s.round, active, truncate))
    if truncate:
        truncate_turn(b)
    elif active is not None and s.stage is Stage.BATTLE:
        # raised in the Defender's own turn: what is left of it is given up for a whole new
        # turn at once (extra_turn_due), its first turn after the alarm (rulings 17, 51)
        while b.state.stage is Stage.BATTLE and b.state.charge is None:
            end_phase(b)
            if b.state.phase is Phase.COMMAND:  # a turn has started: the new one
                break


def extra_turn_due(s: BattleState, seat: Seat) -> bool:
    """As ``seat``'s turn ends: the alarm was raised in this turn of the Defender's, so the
    Defender takes a whole new turn at once [L106] (A6, A21)."""
    n = s.narrative
    return (
        n is not None
        and seat is not s.attacker
        and n.alarm.raised
        and n.alarm.during is Side.DEFENDER
        and n.alarm.defender_turns_since == 0
    )


def truncate_turn(b: Builder) -> None:
    """The alarm raised in the Attacker's turn: that turn ends now [L106]."""
    seat = b.state.active
    while b.state.stage is Stage.BATTLE and b.state.active is seat and b.state.charge is None:
        end_phase(b)


def advance_roll(b: Builder, unit: str) -> Roll | None:
    """*Covered Advance* [L383]: the Advance roll of the unit the player named with it, just
    before this move, counts as a 6 (``None``: the die is rolled) (ruling 95)."""
    s = b.state
    n = s.narrative
    if n is None or not any(
        seat is b.actor and sid == "covered-advance" and r == s.round and s.phase is Phase.MOVEMENT
        for seat, sid, _, r in n.spent
    ):
        return None
    last = next(
        (t for seat, sid, t in reversed(n.aimed) if seat is b.actor and sid == "covered-advance"),
        None,
    )
    if last is None or last not in s.group(unit):
        return None
    strat = n.mission.stratagem("covered-advance")
    value = strat.params.get("value", 6) if isinstance(strat.params, dict) else 6
    face = value if isinstance(value, int) and 1 <= value <= 6 else 6
    record = DieRecord(0, "advance (Covered Advance)", 6, face, outcome="covered advance")
    return Roll(None, (record,))


def before_shoot(b: Builder, unit: str, targets: Sequence[str]) -> None:
    """Before a unit is selected to shoot: Death from the Skies' AIRCRAFT shoot enemy AIRCRAFT
    only in the Dogfight (rulings 93)."""
    skies.before_shoot(b, unit, targets)


def before_attack(b: Builder, cmd: ResolveAttack) -> None:
    """Before an attack is resolved: an AIRCRAFT's spent One Shot weapon (rulings 92)."""
    skies.before_attack(b, cmd)


def after_attack(b: Builder, attacker_unit: str) -> None:
    """After an attack: an Attacker's ranged attack raises the alarm [L92], at once even when
    a spy found or a sabotage attempt has left it pending for the end of the turn (rulings 81).
    With *Silenced Weapons* bought this round it does so only if a model of the target lost a
    wound and is still alive after the attack [L455, L537] (rulings 81). In Death from the
    Skies, the Dogfight attack made and the One Shot weapons fired (rulings 92, 93)."""
    skies.after_attack(b)
    n = b.state.narrative
    s = b.state
    if n is None or not _has_alarm(n) or n.alarm.raised:
        return
    if s.phase is not Phase.SHOOTING or s.units[attacker_unit].owner is not s.attacker:
        return
    silenced = any(
        seat is s.attacker and i == "silenced-weapons" and r == s.round for seat, i, _, r in n.spent
    )
    _, effect = n.alarm.ranged_attack(
        s.round, silenced=silenced, target_wounded_and_alive=silenced and _wounded_survivor(b)
    )
    if effect is not None:
        _raise(b, effect.cause)


def _wounded_survivor(b: Builder) -> bool:
    """The attack just resolved left a model of its target wounded and alive: a model that
    lost at least one wound in it and has wounds left (a sentry is a unit of its own [L88])."""
    resolved = next((o.event for o in reversed(b.out) if isinstance(o.event, AttackResolved)), None)
    if resolved is None:
        return False
    s = b.state
    return any(d.damage > 0 and s.units[d.unit].wounds[d.model] > 0 for d in resolved.damage)


def _raise_alarm(b: Builder, cmd: RaiseAlarm) -> None:
    need_battle(b)
    n = _n(b)
    if not _has_alarm(n):
        raise refuse(Code.BAD_COMMAND, f"{n.mission.id} has no alarm")
    if n.alarm.raised:
        raise refuse(Code.BAD_COMMAND, "the alarm is already raised")
    try:
        cause = AlarmCause(cmd.cause)
    except ValueError:
        raise refuse(Code.BAD_COMMAND, f"unknown cause {cmd.cause!r}") from None
    if cause not in (
        AlarmCause.DETECTED,
        AlarmCause.SENTRY_SURVIVED_FIGHT,
        AlarmCause.PSYCHIC_POWER,
    ):
        raise refuse(Code.BAD_COMMAND, "report detected, sentry_survived_fight or psychic_power")
    _raise(b, cause)


def end_of_turn(b: Builder) -> None:
    """Called as a player turn ends: a pending alarm (sabotage attempt, spy found) is raised."""
    n = b.state.narrative
    if n is None or n.alarm.state is not AlarmState.PENDING:
        return
    assert n.alarm.cause is not None
    b.emit(AlarmChanged(AlarmState.RAISED, n.alarm.cause, b.state.round, b.state.active))


# -- reserves, sustained assault -------------------------------------------------------------


def _reserve_roll(b: Builder, cmd: ReserveRoll) -> None:
    need_phase(b, Phase.MOVEMENT)
    need_active(b)
    n = _n(b)
    u = need_own(b, cmd.unit)
    if cmd.unit not in n.reserves or u.location is not Location.RESERVES:
        raise refuse(Code.NOT_IN_RESERVES, f"{b.state.specs[cmd.unit].name} is not in Reserve")
    if cmd.unit in n.reserve_tried:
        raise refuse(Code.BAD_COMMAND, "one reserve roll per unit and Movement phase")
    if expansion.reserve_override(b, cmd.unit):
        return
    side = _side(b)
    policy = n.mission.reserve_policy(side)
    s = b.state
    modifier = 0
    automatic = False
    for seat, i, _cp, r in n.spent:
        if r == s.round and seat is b.actor and i == "signal-the-attack":
            modifier += 1  # every reserve roll of the turn [L319]
    group = set(s.group(cmd.unit))
    for seat, i, target, cp, r in n.aimed_at:
        if r != s.round or target not in group:
            continue  # the unit named, this round only [L315-L323]
        if seat is not b.actor and i == "delayed-reserves":
            modifier -= cp
        if seat is b.actor and i in ("rapid-reinforcements", "rapid-reaction"):
            automatic = True
    start = len(b.roller.records)
    if cmd.unit in n.fog_delayed:  # delayed by the fog of war: it arrives this turn [L591]
        b.emit(ReserveRolled(cmd.unit, True, "fog_of_war_over"))
        b.emit(UnitArrived(b.state.group(cmd.unit), ReserveKind.STRATEGIC))
        return
    result = reserve_roll(
        policy,
        cmd.unit,
        round_=s.round,
        own_phase=s.round,
        roller=b.roller,
        modifier=modifier,
        automatic=automatic,
        alarm_turns=n.alarm.defender_turns_since if n.alarm.raised else None,
    )
    if result.reason in ("too_early", "not_allowed", "before_alarm"):
        raise refuse(
            Code.RESERVES_NOT_YET, f"{s.specs[cmd.unit].name} cannot arrive now ({result.reason})"
        )
    arrives, reason = result.arrives, result.reason
    zone = zone_of(b.state)
    # Night Fight's fog of war: the first time the unit would arrive, 1-2 it is delayed to its
    # next turn [L591] (rulings 55)
    fog = arrives and zone is not None and "fog_of_war_delayed_up_to" in zone.params
    if fog and zone is not None and fog_of_war_delayed(zone, b.roller, cmd.unit):
        arrives, reason = False, "fog_of_war"
    roll = take_roll(b.roller, start) if len(b.roller.records) > start else None
    b.emit(ReserveRolled(cmd.unit, arrives, reason, roll, modifier))
    if arrives:
        b.emit(UnitArrived(b.state.group(cmd.unit), ReserveKind.STRATEGIC))


def _assault_return(b: Builder, cmd: AssaultReturn) -> None:
    need_phase(b, Phase.MOVEMENT)
    need_active(b)
    n = _n(b)
    rule = n.rules.sustained_assault
    if n.mission.rules.sustained_assault_edge is None or _side(b) is not Side.ATTACKER:
        raise refuse(Code.BAD_COMMAND, "only the Attacker of a sustained assault rolls for this")
    if n.assault_rolled:
        raise refuse(Code.BAD_COMMAND, "sustained assault is rolled once per Movement phase")
    if not n.down:
        raise refuse(Code.BAD_COMMAND, "no destroyed unit to bring back")
    start = len(b.roller.records)
    back: list[str] = []
    troops = n.rules.sentries.troops_keywords
    rolled: list[str] = []
    done: set[str] = set()
    for u in n.down:
        if u in done:
            continue
        # an Attached unit down whole is one unit: one die, back together (its Bodyguard's
        # keywords give the Troops bonus) (docs/rulings/narrative-8e.md)
        state = b.state.units[u]
        partner = state.leader if state.leader is not None else state.bodyguard
        members = (u, partner) if partner is not None and partner in n.down else (u,)
        done.update(members)
        rolled.append(u)
        die = b.roller.roll(6, f"sustained assault: {u}")
        troop = any(b.state.specs[m].has(k) for m in members for k in troops)
        if die + (rule.troops_bonus if troop else 0) >= rule.return_on:
            back.extend(members)
    b.emit(AssaultReturnRolled(tuple(rolled), take_roll(b.roller, start), tuple(back)))


def _cull(b: Builder, cmd: CullUnit) -> None:
    need_phase(b, Phase.FIGHT)
    need_active(b)
    n = _n(b)
    need_own(b, cmd.unit)
    need_alive(b, cmd.unit)
    if n.mission.rules.sustained_assault_edge is None or _side(b) is not Side.ATTACKER:
        raise refuse(Code.BAD_COMMAND, "only the Attacker of a sustained assault culls units")
    spec = b.state.specs[cmd.unit]
    u = b.state.units[cmd.unit]
    ok = may_cull(
        n.rules.sustained_assault,
        starting_models=spec.models,
        models_left=u.models_alive,
        starting_wounds=sum(spec.max_wounds),
        wounds_left=sum(u.wounds),
    )
    if not ok:
        raise refuse(Code.BAD_COMMAND, f"{spec.name} is above a quarter of its starting strength")
    b.emit(UnitsDestroyed((cmd.unit,), cause="culled"))
    b.emit(AttackerUnitsDown((cmd.unit,), culled=True))


def _no_late_arrivals(b: Builder) -> None:
    """A side whose units may not arrive later (Meat Grinder's Defender [L135]: every unit set
    up by Hidden Deployment) declares no unit in Reserve in its Battle Formations (rulings
    74); an AIRCRAFT is set up in Hover."""
    s = b.state
    n = s.narrative
    if n is None or s.attacker is None:
        return
    for emitted in b.out:
        e = emitted.event
        if not isinstance(e, FormationDeclared) or not e.formation.reserves:
            continue
        if n.mission.reserve_policy(side_of(s.attacker, e.seat)).mode is ReserveMode.NONE:
            raise refuse(
                Code.INVALID_FORMATION,
                "in this mission your units may not arrive later: no unit in Reserve "
                "(an AIRCRAFT is set up in Hover) [L135]",
            )


def fog_on_core_arrivals(b: Builder) -> None:
    """Night Fight's fog of war [L591] on a unit arriving by the 10th edition's own rules in
    this command (Deep Strike, Strategic Reserves, Rapid Ingress): the first time, a D6; on
    1-2 it goes back into Reserve and arrives in its next turn (``must_arrive``: the next
    round, when it arrived in its own turn). The scenario's reserves roll theirs in
    ``reserve_roll`` (rulings 55, 74). In Only War, the battle keeps the units that rolled
    (ruling 96)."""
    s = b.state
    n = s.narrative
    zone = zone_of(s)
    if zone is None or "fog_of_war_delayed_up_to" not in zone.params:
        return
    rolled = n.fog_rolled if n is not None else s.fog_rolled
    if any(
        o.event.kind.startswith(("narrative_", "expansion_")) for o in b.out
    ):  # a scenario's or an expansion's own arrival
        return
    for emitted in list(b.out):
        e = emitted.event
        if not isinstance(e, UnitArrived) or e.units[0] in rolled:
            continue
        start = len(b.roller.records)
        delayed = fog_of_war_delayed(zone, b.roller, e.units[0])
        own = b.state.active is b.state.units[e.units[0]].owner
        b.emit(
            FogOfWarRolled(
                e.units,
                take_roll(b.roller, start),
                delayed,
                e.reserve if delayed else None,
                b.state.round + 1 if delayed and own else None,
            )
        )


def _gone_to_ground_acts(b: Builder) -> None:
    """A unit gone to ground (hit by the bombardment, or a Firestorm Attack, after going to
    ground) does not move, shoot, charge or fight in its own first turn [L64] unless it passed
    *Iron Discipline* [L255] (rulings 14, 72): a command that would make it do so is refused.
    Remaining Stationary is no move; acting in the opponent's turn is not forbidden."""
    s = b.state
    n = s.narrative
    if n is None or not n.grounded or s.stage is not Stage.BATTLE or s.round != 1:
        return
    for emitted in b.out:
        e = emitted.event
        code = None
        units: tuple[str, ...] = ()
        if isinstance(e, UnitMoved) and e.mode is not MoveMode.REMAIN_STATIONARY:
            code, what, units = Code.BAD_COMMAND, "move", e.units
        elif isinstance(e, UnitSelectedToShoot) and not e.overwatch:
            code, what, units = Code.NOT_ELIGIBLE_TO_SHOOT, "shoot", e.units
        elif isinstance(e, ChargeDeclared):
            code, what, units = Code.CANNOT_CHARGE, "charge", e.units
        elif isinstance(e, UnitSelectedToFight):
            code, what, units = Code.NOT_ELIGIBLE_TO_FIGHT, "fight", e.units
        if code is None:
            continue
        down = [u for u in units if u in n.grounded and s.units[u].owner is s.active]
        if down:
            raise refuse(
                code,
                f"{s.specs[down[0]].name} went to ground: it does not {what} in its first "
                "turn (Iron Discipline lifts it on a 2+) [L64]",
            )


def track_destroyed(b: Builder) -> None:
    """After every command: Attacker units newly destroyed are recorded (sustained assault
    brings them back; Blitz scores each destruction). An empty Dedicated Transport held back
    "counts as destroyed" in round 1 by the core rules, but it never was on the battlefield:
    it is no destruction of the scenario and never returns (rulings 53). The same after-command
    hook checks what the scenario says of the 10th edition's own reserves: no late arrival
    where the scenario forbids it, and Night Fight's fog on their arrival (rulings 74)."""
    _no_late_arrivals(b)
    fog_on_core_arrivals(b)
    _gone_to_ground_acts(b)
    n = b.state.narrative
    s = b.state
    if n is None or s.stage is not Stage.BATTLE or s.attacker is None:
        return
    off = (Location.RESERVES, Location.HELD_BACK)
    new = tuple(
        u.id
        for u in s.units_of(s.attacker)
        if not u.alive and u.id not in n.down and u.location not in off
    )
    if new:
        b.emit(AttackerUnitsDown(new))


# -- sabotage, spy, escape, zones --------------------------------------------------------------


def _attempt_sabotage(b: Builder, cmd: AttemptSabotage) -> None:
    need_phase(b, Phase.FIGHT)
    need_active(b)
    n = _n(b)
    if n.mission.evaluator is not Evaluator.SABOTAGE or _side(b) is not Side.ATTACKER:
        raise refuse(Code.BAD_COMMAND, "only the Attacker of Sabotage attempts a sabotage")
    need_own(b, cmd.unit)
    need_alive(b, cmd.unit)
    excluded = n.mission.params.get("excluded_keywords", ["VEHICLE", "MONSTER"])
    assert isinstance(excluded, list)
    sab = Sabotage(attempts=n.attempts, extra=n.extra_explosives)
    keywords = {k for i in b.state.group(cmd.unit) for k in b.state.specs[i].keywords}
    try:
        sab.attempt(
            cmd.unit,
            b.state.round,
            distance=0.0,
            keywords=keywords,
            excluded=[str(x) for x in excluded],
        )
    except NarrativeError as exc:
        raise refuse(Code.BAD_COMMAND, str(exc)) from None
    b.emit(SabotageAttempted(cmd.unit, b.state.round))
    if n.alarm.state is AlarmState.CALM:
        b.emit(AlarmChanged(AlarmState.PENDING, AlarmCause.SABOTAGE_ATTEMPT, b.state.round))


def _search(b: Builder, unit: str, place: str, *, scan: bool) -> None:
    n = _n(b)
    if n.spy_found_at is not None:
        raise refuse(Code.BAD_COMMAND, "the spy is already found")
    if place not in n.places or place in n.searched:
        raise refuse(Code.BAD_COMMAND, f"no hiding place {place!r} left to search")
    key = "scan_found_on" if scan else "found_on"
    found_on = n.mission.params.get(key, 6)
    assert isinstance(found_on, int)
    last = not scan and len(n.searched) == len(n.places) - 1
    start = len(b.roller.records)
    die = b.roller.roll(6, f"{'beacon scan' if scan else 'search'} {place}")
    found = last or die >= found_on
    b.emit(HidingPlaceSearched(unit, place, take_roll(b.roller, start), found, scan))
    if found and n.alarm.state is AlarmState.CALM:
        b.emit(AlarmChanged(AlarmState.PENDING, AlarmCause.SPY_FOUND, b.state.round))


def _search_hiding_place(b: Builder, cmd: SearchHidingPlace) -> None:
    need_active(b)
    n = _n(b)
    if n.mission.evaluator is not Evaluator.RESCUE or _side(b) is not Side.ATTACKER:
        raise refuse(Code.BAD_COMMAND, "only the Attacker of Rescue searches for the spy")
    need_own(b, cmd.unit)
    need_alive(b, cmd.unit)
    _search(b, cmd.unit, cmd.place, scan=False)


def _report_spy_killed(b: Builder, cmd: ReportSpyKilled) -> None:
    need_battle(b)
    n = _n(b)
    if n.spy_found_at is None or not n.spy_alive:
        raise refuse(Code.BAD_COMMAND, "the spy is not found, or already dead")
    b.emit(SpyKilled())


SPY_NOT_PLACED = "spy_not_placed"
"""The battle's end reason when the spy found could not be placed [L519] (rulings 82)."""


def report_spy_unplaced(b: Builder, cmd: object = None) -> None:
    """The Attacker reports that the spy it has just found cannot be placed (within 3" of its
    hiding place and more than 1" from any enemy model): the spy is killed and the Attacker
    loses at once [L519] (rulings 27, 82). Only the Attacker sends it, in its own turn, while
    the spy is found and alive; it needs no confirmation (it ends the battle against its
    sender, as a concession does)."""
    need_active(b)
    n = _n(b)
    if n.mission.evaluator is not Evaluator.RESCUE:
        raise refuse(Code.BAD_COMMAND, f"{n.mission.id} has no spy")
    if _side(b) is not Side.ATTACKER:
        raise refuse(Code.NOT_YOUR_CHOICE, "the Attacker places the spy it found")
    if n.spy_found_at is None or not n.spy_alive:
        raise refuse(Code.BAD_COMMAND, "the spy is not found, or already dead")
    b.emit(SpyKilled())
    end_battle(b, SPY_NOT_PLACED)


def _escape(b: Builder, cmd: EscapeUnit) -> None:
    need_phase(b, Phase.MOVEMENT)
    need_active(b)
    n = _n(b)
    if n.mission.evaluator is not Evaluator.ESCAPE or _side(b) is not Side.DEFENDER:
        raise refuse(Code.BAD_COMMAND, "only the Defender of Ambush escapes")
    need_own(b, cmd.unit)
    need_alive(b, cmd.unit)
    b.emit(UnitEscaped(b.state.group(cmd.unit)))


def _report_zones(b: Builder, cmd: ReportZones) -> None:
    need_battle(b)
    n = _n(b)
    if n.mission.evaluator is not Evaluator.BREAKTHROUGH:
        raise refuse(Code.BAD_COMMAND, f"{n.mission.id} has no First and Second Line zones")
    attacker = _attacker(b)
    for u in (*cmd.first_line, *cmd.second_line):
        if need_unit(b, u).owner is not attacker:
            raise refuse(Code.BAD_COMMAND, f"{u!r} is not an Attacker unit")
    # an Attached unit scores as one unit, once, in its better zone: each unit named is
    # recorded as its group's first unit (the Bodyguard)
    second = tuple(dict.fromkeys(b.state.group(u)[0] for u in cmd.second_line))
    first = tuple(
        h for h in dict.fromkeys(b.state.group(u)[0] for u in cmd.first_line) if h not in second
    )
    b.emit(ZonesReported(first, second))


# -- victory -----------------------------------------------------------------------------------


def _on_table(s: BattleState, unit: str) -> bool:
    u = s.units[unit]
    if not u.alive:
        return False
    if u.location is Location.EMBARKED and u.embarked_in is not None:
        return s.on_battlefield(u.embarked_in)
    return u.location is Location.BATTLEFIELD


def _facts(s: BattleState, n: NarrativeState) -> Facts:
    attacker = s.attacker
    assert attacker is not None
    defender = other(attacker)
    ev = n.mission.evaluator
    if ev is Evaluator.LAST_STAND:
        return LastStandFacts(
            sum(u.models_alive for u in s.units_of(defender) if _on_table(s, u.id))
        )
    if ev is Evaluator.ESCAPE:
        escaped = {u: unit_value(s, u) for u in n.escaped}
        return EscapeFacts(escaped, _value(s, defender))
    if ev is Evaluator.UNITS_DESTROYED:
        return PatrolFacts(
            [u.id for u in s.units_of(attacker)],
            [u.id for u in s.units_of(defender)],
            [u.id for u in s.units.values() if not u.alive],
            [u for u in s.units if _on_table(s, u)],
        )
    if ev is Evaluator.BREAKTHROUGH:
        alive = {u for u in s.units if _on_table(s, u)}
        return BlitzFacts(
            [u for u in n.first_line if u in alive],
            [u for u in n.second_line if u in alive],
            n.destructions,
        )
    if ev is Evaluator.SABOTAGE:
        return SabotageFacts(len(n.attempts), bool(n.times_used(defender, "cut-the-wires")))
    return RescueFacts(n.spy_found_at is not None, n.spy_alive)


def _facts_at_end(s: BattleState, n: NarrativeState, reason: str) -> Facts:
    """The facts of the evaluation; the spy not placed is Rescue's own loss [L519]."""
    facts = _facts(s, n)
    if reason == SPY_NOT_PLACED and isinstance(facts, RescueFacts):
        return RescueFacts(facts.spy_found, spy_alive=False, placement_failed=True)
    return facts


def evaluate_end(b: Builder, reason: str, in_reserve: tuple[str, ...]) -> None:
    """End a narrative battle with the mission's own victory evaluation."""
    s = b.state
    n = s.narrative
    assert n is not None
    attacker = s.attacker
    if attacker is None:  # conceded before the roles were chosen: nothing to evaluate
        vp = {Seat.A: 0, Seat.B: 0}
        b.emit(BattleEnded(Result(reason, None, vp, in_reserve)))
        return
    expansion.aircraft_lost(b)
    s = b.state
    n = s.narrative
    assert n is not None
    start = len(b.roller.records)
    victory = evaluate(n.mission, _facts_at_end(s, n, reason), b.roller)
    roll = take_roll(b.roller, start) if victory.dice else None
    winner = None if victory.winner is None else seat_of_side(attacker, victory.winner)
    lines = tuple(
        {"side": line.side.value, "item": line.item, "vp": line.vp, "detail": line.detail}
        for line in victory.breakdown
    )
    b.emit(NarrativeEvaluated(winner, victory.result.value, victory.vp, lines, roll))
    a_vp, d_vp = victory.vp if victory.vp is not None else (0, 0)
    vp = {attacker: a_vp, other(attacker): d_vp}
    b.emit(BattleEnded(Result(reason, winner, vp, in_reserve)))


COMMANDS: dict[type[Tagged], Callable[[Builder, Any], None]] = {
    PlaceTokens: _place_tokens,
    DeployForces: _deploy_forces,
    GoToGround: _go_to_ground,
    Bombard: _bombard,
    UseMissionStratagem: _use_mission_stratagem,
    RaiseAlarm: _raise_alarm,
    ReserveRoll: _reserve_roll,
    AssaultReturn: _assault_return,
    CullUnit: _cull,
    AttemptSabotage: _attempt_sabotage,
    SearchHidingPlace: _search_hiding_place,
    ReportSpyKilled: _report_spy_killed,
    ReportSpyUnplaced: report_spy_unplaced,
    EscapeUnit: _escape,
    ReportZones: _report_zones,
    **expansion.COMMANDS,
    **narrative_zones.COMMANDS,
    **POWER_COMMANDS,
}
