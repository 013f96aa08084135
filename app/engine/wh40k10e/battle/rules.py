"""``decide``: every command checked against the state, then turned into events.

One handler per command. A handler raises a coded refusal or emits the events through the
:class:`~app.engine.wh40k10e.battle.flow.Builder`; :func:`decide` then runs the checks that
follow any command (a Transport destroyed with units inside, an army wiped out).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass, fields, replace
from typing import Any, ClassVar

from app.engine.match.codec import Tagged, TaggedCodec
from app.engine.match.dice import Roll, take_roll
from app.engine.match.events import Event
from app.engine.match.log import Decision
from app.engine.match.missions import Mission
from app.engine.roller import Roller
from app.engine.wh40k10e.battle import narrative_rules, narrative_zones
from app.engine.wh40k10e.battle.commands import (
    COMMAND_CODEC,
    ArriveFromReserves,
    BattleShockTest,
    CompleteCharge,
    Concede,
    ConfirmCoherency,
    ConfirmResult,
    Consolidate,
    DeadlyDemise,
    DeclareCharge,
    DeclareFormations,
    DeployUnit,
    Disembark,
    DisembarkFromDestroyedTransport,
    DisputeResult,
    EndPhase,
    EndScouts,
    Fight,
    GainCommandPoint,
    HazardousTest,
    Move,
    Pass,
    PlaceObjective,
    Removal,
    RemoveModels,
    ReportEngagement,
    ReportObjective,
    ResolveAttack,
    RollOff,
    ScoutMove,
    Shoot,
    StartMove,
    UseStratagem,
)
from app.engine.wh40k10e.battle.eligibility import (
    charge_problem,
    charge_target_problem,
    fight_candidates,
    fight_eligible,
    fight_turn,
    head,
    lone_operative_problem,
    melee_target_problem,
    pistols_only,
    shoot_problem,
    shoot_target_problem,
    weapons_refusal,
)
from app.engine.wh40k10e.battle.errors import Code, refuse
from app.engine.wh40k10e.battle.events import (
    EVENT_CODEC,
    AttackResolved,
    BattleShockTested,
    ChargeDeclared,
    ChargeMoveMade,
    CoherencyCheckOpened,
    CoherencyConfirmed,
    CommandPointsGained,
    DeadlyDemiseResolved,
    EngagementReported,
    FormationDeclared,
    FormationsRevealed,
    FormationSubmitted,
    HazardousTested,
    MatchCreated,
    ModelsRemoved,
    MortalWoundsInflicted,
    MoveStarted,
    ObjectivePlaced,
    PresenceReported,
    ReactionWindowClosed,
    ReactionWindowOpened,
    ResultConfirmed,
    ResultDisputed,
    RollOffMade,
    ScoutMoved,
    ScoutsFinished,
    StepStarted,
    UnitArrived,
    UnitConsolidated,
    UnitDeployed,
    UnitDisembarked,
    UnitMoved,
    UnitSelectedToFight,
    UnitSelectedToShoot,
)
from app.engine.wh40k10e.battle.evolve import apply_damage, evolve
from app.engine.wh40k10e.battle.flow import (
    Builder,
    advance_setup,
    allocate,
    casualty_slots,
    end_battle,
    end_phase,
    finish,
    need_active,
    need_alive,
    need_battle,
    need_enemy,
    need_own,
    need_phase,
    need_unit,
    next_scouts,
    no_pending,
    reserve_round_ok,
    roll_losses,
    scout_units,
    seat_of,
)
from app.engine.wh40k10e.battle.formations import check_formation
from app.engine.wh40k10e.battle.setup import Ability, MatchSetup, Seat, other
from app.engine.wh40k10e.battle.state import (
    BattleState,
    Location,
    ModelDamage,
    MoveMode,
    Phase,
    Stage,
    Step,
)
from app.engine.wh40k10e.battle.stratagems import STRATAGEMS, use_stratagem

__all__ = [
    "RULE_BOOK",
    "BattleRuleBook",
    "CreateMatch",
    "check_mission",
    "decide",
    "shock_tests_pending",
]

MAX_ITEMS = 1000
MAX_TEXT = 500


@dataclass(frozen=True, slots=True)
class CreateMatch(Tagged):
    """Internal: the first command of a match (not part of the public command set)."""

    kind: ClassVar[str] = "create_match"
    setup: MatchSetup


# -- missions --------------------------------------------------------------------------------

_STEPS = {"roll_off", "place_objectives", "declare_formations", "deploy", "scouts"}
_ROLL_OFFS = {"objectives", "attacker", "first_turn"}
_WHEN = {"end_of_command_phase", "end_of_turn", "end_of_battle_round"}


def check_mission(mission: Mission) -> None:
    """Refuse a mission that uses something this engine does not implement."""
    problems: list[str] = []
    steps = [s.step for s in mission.sequence]
    for s in mission.sequence:
        if s.step not in _STEPS:
            problems.append(f"set-up step {s.step!r}")
        if s.step == "roll_off" and s.purpose not in _ROLL_OFFS:
            problems.append(f"roll-off purpose {s.purpose!r}")
    purposes = [s.purpose for s in mission.sequence if s.step == "roll_off"]
    for needed in ("attacker", "first_turn"):
        if needed not in purposes:
            problems.append(f"a roll-off for {needed!r} is required")
    for needed in ("declare_formations", "deploy"):
        if needed not in steps:
            problems.append(f"the {needed!r} step is required")
    if (
        "attacker" in purposes
        and "deploy" in steps
        and (
            steps.index("deploy")
            < next(i for i, s in enumerate(mission.sequence) if s.purpose == "attacker")
        )
    ):
        problems.append("the attacker must be known before deployment")
    fp = mission.objectives.first_placer
    if mission.objectives.placement == "alternate":
        if fp not in ("attacker", "defender") and not (
            fp is not None and fp.startswith("roll_off:") and fp[9:] in purposes
        ):
            problems.append(f"first placer {fp!r}")
        if "place_objectives" not in steps:
            problems.append("alternate placement needs a 'place_objectives' step")
    if mission.deployment.first not in ("attacker", "defender"):
        problems.append(f"deployment first {mission.deployment.first!r}")
    for r in mission.scoring:
        if r.when not in _WHEN or r.who not in ("active_player", "each_player"):
            problems.append(f"scoring window {r.id!r} ({r.when}, {r.who})")
        if r.source != "controlled_markers":
            problems.append(f"scoring source {r.source!r}")
    for e in mission.length.extensions:
        if e.roller not in ("first_player", "second_player"):
            problems.append(f"battle-length roller {e.roller!r}")
    for c in mission.end_conditions:
        if c != "army_destroyed":
            problems.append(f"end condition {c!r}")
    v = mission.victory
    if (v.army_destroyed, v.otherwise, v.tie) != ("opponent_wins", "most_vp", "draw"):
        problems.append("victory rules other than most VP / wipe-out / draw")
    if problems:
        raise refuse(
            Code.UNSUPPORTED_MISSION,
            f"mission {mission.id!r} uses what this engine does not implement: "
            + "; ".join(problems),
        )


# -- set-up ----------------------------------------------------------------------------------


def _create(b: Builder, cmd: CreateMatch) -> None:
    if b.state.setup is not None:
        raise refuse(Code.MATCH_ALREADY_CREATED, "this match already exists")
    check_mission(cmd.setup.mission)
    setup = cmd.setup
    if setup.options.coherency_check is None:  # recorded: replays never depend on a default
        setup = replace(setup, options=replace(setup.options, coherency_check=True))
    b.emit(MatchCreated(setup))
    advance_setup(b)


def _need_stage(b: Builder, stage: Stage) -> None:
    s = b.state.stage
    if s is stage:
        return
    if s is Stage.ENDED:
        raise refuse(Code.BATTLE_OVER, "the battle is over")
    if stage is Stage.DEPLOY and s is Stage.DECLARE_FORMATIONS:
        raise refuse(
            Code.FORMATIONS_NOT_REVEALED,
            "Battle Formations are not revealed yet: both players must submit theirs first",
        )
    raise refuse(Code.WRONG_STAGE, f"this is done in the {stage} step, not {s}")


def _need_next_seat(b: Builder) -> None:
    if b.state.next_seat is not b.actor:
        raise refuse(Code.NOT_YOUR_CHOICE, "it is your opponent's turn to do this")


def _roll_off(b: Builder, cmd: RollOff) -> None:
    """[L679-683]: 1 D6 each, the higher wins, a tie rolls again (no re-roll, no modifier)."""
    _need_stage(b, Stage.ROLL_OFF)
    assert b.state.setup is not None
    if b.state.narrative is not None:
        if b.state.narrative.step == "choose_attacker":
            narrative_rules.choose_attacker(b)
        else:
            narrative_rules.decide_first_turn(b)
        return
    purpose = b.state.setup.mission.sequence[b.state.setup_index].purpose
    assert purpose is not None
    for _ in range(100):
        start = len(b.roller.records)
        a = b.roller.roll(6, f"roll-off ({purpose}): A")
        bb = b.roller.roll(6, f"roll-off ({purpose}): B")
        winner = Seat.A if a > bb else Seat.B if bb > a else None
        b.emit(RollOffMade(purpose, take_roll(b.roller, start), winner))
        if winner is not None:
            advance_setup(b)
            return
        if b.roller.seed is None and b.roller.remaining_given < 2:
            return  # a tie with dice rolled by hand: roll off again


def _place_objective(b: Builder, cmd: PlaceObjective) -> None:
    _need_stage(b, Stage.PLACE_OBJECTIVES)
    _need_next_seat(b)
    s = b.state
    assert s.setup is not None
    open_markers = [m for m in s.markers.values() if m.placed_by is None and m.x is None]
    if cmd.marker is None:
        marker = open_markers[0].id
    elif cmd.marker not in s.markers:
        raise refuse(Code.UNKNOWN_MARKER, f"there is no objective marker {cmd.marker!r}")
    elif all(m.id != cmd.marker for m in open_markers):
        raise refuse(Code.MARKER_ALREADY_PLACED, f"marker {cmd.marker!r} is already placed")
    else:
        marker = cmd.marker
    if (cmd.x is None) != (cmd.y is None):
        raise refuse(Code.BAD_POSITION, "give both x and y, or neither")
    if cmd.x is not None and cmd.y is not None:
        spec = s.setup.mission.objectives
        field = s.setup.mission.battle_size(s.setup.battle_size).battlefield
        x, y = cmd.x, cmd.y
        if not (0 <= x <= field.width and 0 <= y <= field.depth):
            raise refuse(
                Code.BAD_POSITION, f"({x}, {y}) is off the {field.width}x{field.depth} battlefield"
            )
        edge = min(x, y, field.width - x, field.depth - y)
        if spec.min_edge_distance is not None and edge <= spec.min_edge_distance:
            raise refuse(
                Code.BAD_POSITION,
                f'a marker must be more than {spec.min_edge_distance}" from every edge ({edge}")',
            )
        for m in s.markers.values():
            if m.x is None or m.y is None or m.id == marker:
                continue
            gap = math.hypot(m.x - x, m.y - y)
            if spec.min_separation is not None and gap <= spec.min_separation:
                raise refuse(
                    Code.BAD_POSITION,
                    f'a marker must be more than {spec.min_separation}" from marker {m.id} '
                    f'({gap:.1f}")',
                )
    at_x = None if cmd.x is None else float(cmd.x)
    at_y = None if cmd.y is None else float(cmd.y)
    b.emit(ObjectivePlaced(marker, b.actor, at_x, at_y))
    if len(open_markers) == 1:
        advance_setup(b)


def _declare_formations(b: Builder, cmd: DeclareFormations) -> None:
    s = b.state
    if s.revealed:
        raise refuse(Code.FORMATIONS_ALREADY_REVEALED, "Battle Formations are already revealed")
    _need_stage(b, Stage.DECLARE_FORMATIONS)
    assert s.setup is not None
    formation, problems = check_formation(s.setup, b.actor, cmd.formation)
    if problems:
        raise refuse(
            Code.INVALID_FORMATION,
            f"your Battle Formations have {len(problems)} problem(s): {problems[0]['message']}",
            problems=list(problems),
        )
    if not s.players[b.actor].formation_submitted:
        b.emit(FormationSubmitted(b.actor))
    b.emit(FormationDeclared(b.actor, formation), audience=(str(b.actor),))
    s = b.state
    if all(p.formation_submitted for p in s.players.values()):
        formations = dict(s.formations)
        carried = {u for f in formations.values() for _, u in f.embarked}
        held_back = tuple(
            sorted(
                u
                for u, spec in s.specs.items()
                if spec.has("DEDICATED TRANSPORT") and u not in carried
            )
        )
        b.emit(FormationsRevealed(formations, held_back))
        advance_setup(b)


def _deploy(b: Builder, cmd: DeployUnit) -> None:
    _need_stage(b, Stage.DEPLOY)
    _need_next_seat(b)
    u = need_own(b, cmd.unit)
    s = b.state
    group = s.group(cmd.unit)
    if u.location is not Location.TO_DEPLOY:
        raise refuse(
            Code.NOT_DEPLOYABLE, f"{s.specs[cmd.unit].name} is not to be deployed ({u.location})"
        )
    if cmd.infiltrate and not s.all_have(cmd.unit, Ability.INFILTRATORS):
        raise refuse(
            Code.NOT_INFILTRATORS, f"not every model of {s.specs[cmd.unit].name} has Infiltrators"
        )
    b.emit(UnitDeployed(b.actor, group, cmd.infiltrate))
    if not any(x.location is Location.TO_DEPLOY for x in b.state.units.values()):
        advance_setup(b)


def _scout_move(b: Builder, cmd: ScoutMove) -> None:
    _need_stage(b, Stage.SCOUTS)
    _need_next_seat(b)
    need_own(b, cmd.unit)
    s = b.state
    unit = head(s, cmd.unit) if s.units[cmd.unit].embarked_in is None else cmd.unit
    if unit not in scout_units(s, b.actor):
        raise refuse(Code.NOT_A_SCOUT, f"{s.specs[cmd.unit].name} cannot make a Scouts move now")
    b.emit(ScoutMoved(s.group(unit)))
    if not scout_units(b.state, b.actor):
        b.emit(ScoutsFinished(b.actor))
        next_scouts(b)


def _end_scouts(b: Builder, cmd: EndScouts) -> None:
    _need_stage(b, Stage.SCOUTS)
    _need_next_seat(b)
    b.emit(ScoutsFinished(b.actor))
    next_scouts(b)


# -- command phase ---------------------------------------------------------------------------


def shock_tests_pending(state: BattleState) -> list[str]:
    """Units of the active player that must still take a Battle-shock test [L786-791]."""
    active = state.active
    if active is None or state.step is not Step.BATTLE_SHOCK:
        return []
    heads = sorted({head(state, u.id) for u in state.units_of(active) if u.alive})
    return [
        h
        for h in heads
        if state.on_battlefield(h)
        and state.below_half_strength(h)
        and not state.units[h].shock_tested
    ]


def _battle_shock_test(b: Builder, cmd: BattleShockTest) -> None:
    need_phase(b, Phase.COMMAND, Step.BATTLE_SHOCK)
    need_active(b)
    no_pending(b)
    need_own(b, cmd.unit)
    need_alive(b, cmd.unit)
    s = b.state
    unit = head(s, cmd.unit)
    if unit not in shock_tests_pending(s):
        why = "was already tested" if s.units[unit].shock_tested else "is not Below Half-strength"
        raise refuse(Code.SHOCK_TEST_NOT_NEEDED, f"{s.specs[unit].name} {why}")
    roll = b.roll(2, 6, "battle-shock")
    needed = s.best_leadership(unit)
    b.emit(BattleShockTested(s.group(unit), roll, needed, roll.total >= needed))


def _gain_cp(b: Builder, cmd: GainCommandPoint) -> None:
    need_battle(b)
    if b.state.players[b.actor].extra_cp_this_round:
        raise refuse(
            Code.CP_GAIN_CAP,
            "you have already gained 1 CP this battle round outside the Command phase",
        )
    b.emit(CommandPointsGained(b.actor, 1, cmd.source or "other", extra=True))


# -- movement --------------------------------------------------------------------------------


def _aircraft(s: BattleState, unit: str) -> bool:
    return any(s.specs[i].has("AIRCRAFT") and not s.units[i].hover for i in s.group(unit))


def _engaged_with_ground(s: BattleState, unit: str) -> bool:
    """In Engagement Range of an enemy that is not an Aircraft [L4127-4131]."""
    return any(not _aircraft(s, e) for e in s.engaged_units(unit))


def _check_move(b: Builder, unit: str, mode: MoveMode, *, left_battlefield: bool) -> None:
    """What a ``mode`` move of ``unit`` needs, checked when it is announced or made."""
    need_phase(b, Phase.MOVEMENT)
    need_active(b)
    no_pending(b)
    if b.state.step is not Step.MOVE_UNITS:
        raise refuse(Code.WRONG_STEP, "the Reinforcements step has begun: no more moves this phase")
    u = need_own(b, unit)
    need_alive(b, unit)
    s = b.state
    name = s.specs[unit].name
    if u.move is not None or u.arrived:
        raise refuse(Code.ALREADY_MOVED, f"{name} has already moved this phase")
    air = _aircraft(s, unit)
    if air and mode is not MoveMode.NORMAL:
        raise refuse(Code.AIRCRAFT_MOVE, "an Aircraft can only make a Normal move [L4064-4066]")
    if left_battlefield and not air:
        raise refuse(Code.AIRCRAFT_MOVE, "only an Aircraft leaves the battlefield by moving")
    engaged = _engaged_with_ground(s, unit)
    if mode in (MoveMode.NORMAL, MoveMode.ADVANCE) and engaged and not air:
        raise refuse(
            Code.UNIT_ENGAGED,
            f"{name} is within Engagement Range: it can only Remain Stationary or Fall Back",
        )
    if mode is MoveMode.FALL_BACK and not s.engaged(unit):
        raise refuse(
            Code.NOT_ENGAGED, f"{name} is not within Engagement Range: nothing to fall back from"
        )
    if mode is MoveMode.REMAIN_STATIONARY and u.disembarked:
        raise refuse(Code.CANNOT_REMAIN_STATIONARY, f"{name} disembarked this phase and must move")


def _start_move(b: Builder, cmd: StartMove) -> None:
    """[L3422-3444]: Fire Overwatch may answer a unit that starts a Normal, Advance or Fall
    Back move; the player announces it, the ``move`` follows."""
    if cmd.mode is MoveMode.REMAIN_STATIONARY:
        raise refuse(Code.BAD_COMMAND, "a unit that Remains Stationary does not start a move")
    _check_move(b, cmd.unit, cmd.mode, left_battlefield=False)
    b.emit(MoveStarted(b.state.group(cmd.unit), cmd.mode))


def _move(b: Builder, cmd: Move) -> None:
    mode = cmd.mode
    _check_move(b, cmd.unit, mode, left_battlefield=cmd.left_battlefield)
    s = b.state
    group = s.group(cmd.unit)
    alive = sum(s.units[i].models_alive for i in group)
    if mode is not MoveMode.FALL_BACK and (cmd.crossing or cmd.casualties):
        raise refuse(Code.BAD_COMMAND, "Desperate Escape tests are only taken when Falling Back")
    if not 0 <= cmd.crossing <= alive:
        raise refuse(Code.BAD_COMMAND, f"crossing must be 0..{alive} models")
    transport = cmd.embark
    if transport is not None:
        _check_embark(b, cmd.unit, transport, mode, fits=cmd.fits)
    roll = None
    losses: tuple[Any, ...] = ()
    if mode is MoveMode.ADVANCE:
        roll = narrative_rules.advance_roll(b, cmd.unit) or b.roll(1, 6, "advance")
    elif mode is MoveMode.FALL_BACK:
        tests = _desperate_escape_tests(b, cmd, alive)
        if tests:
            roll = b.roll(tests, 6, "desperate escape")
            first = s.units[group[0]]
            if any(not 0 <= c < len(first.wounds) or first.wounds[c] <= 0 for c in cmd.casualties):
                raise refuse(Code.BAD_CASUALTIES, "casualties must name living model slots")
            losses = roll_losses(
                s, cmd.unit, "desperate_escape", roll.values, chosen=cmd.casualties
            )
    b.emit(
        UnitMoved(
            group, mode, roll, losses, embarked_in=transport, left_battlefield=cmd.left_battlefield
        )
    )


def _desperate_escape_tests(b: Builder, cmd: Move, alive: int) -> int:
    """[L1012-1026]: one test per model crossing enemy models (not FLY or TITANIC); every
    model of a Battle-shocked unit (FLY and TITANIC too by default: the literal text)."""
    s = b.state
    exempt = s.all_have_keyword(cmd.unit, "FLY") or s.all_have_keyword(cmd.unit, "TITANIC")
    assert s.setup is not None
    if s.units[cmd.unit].battle_shocked:
        if exempt and not s.setup.options.battle_shocked_fall_back_tests_fly:
            return 0
        return alive
    if exempt and cmd.crossing:
        raise refuse(Code.BAD_COMMAND, "FLY and TITANIC models take no Desperate Escape test")
    return cmd.crossing


def _check_embark(
    b: Builder, unit: str, transport: str, mode: MoveMode, *, fits: bool = False
) -> None:
    s = b.state
    t = need_own(b, transport)
    name = s.specs[unit].name
    if mode is MoveMode.REMAIN_STATIONARY:
        raise refuse(
            Code.CANNOT_EMBARK, "a unit embarks at the end of a Normal, Advance or Fall Back move"
        )
    if not s.specs[transport].has("TRANSPORT") or s.specs[transport].transport_capacity <= 0:
        raise refuse(Code.CANNOT_EMBARK, f"{s.specs[transport].name} is not a Transport")
    if not s.on_battlefield(transport) or t.id in s.group(unit):
        raise refuse(Code.CANNOT_EMBARK, f"{s.specs[transport].name} is not on the battlefield")
    if s.units[unit].disembarked:
        raise refuse(
            Code.CANNOT_EMBARK, f"{name} disembarked this phase and cannot embark [L1224-1225]"
        )
    if s.specs[unit].transport_capacity > 0:
        raise refuse(Code.CANNOT_EMBARK, "a Transport cannot embark in another Transport")
    carrier = s.specs[transport]
    for part in s.group(unit):
        fit = carrier.transport_fit(s.specs[part])
        if fit is False:
            raise refuse(
                Code.TRANSPORT_REFUSES,
                f"{carrier.name} cannot carry {s.specs[part].name} [L1208-1212]",
            )
        if fit is None and not fits:
            raise refuse(
                Code.TRANSPORT_FIT_UNKNOWN,
                f"the data does not say whether {carrier.name} takes {s.specs[part].name}'s "
                "models: check its datasheet's transport capacity and confirm (fits)",
                unit=part,
                transport=transport,
            )
    load = sum(u.models_alive for u in s.units.values() if u.embarked_in == transport and u.alive)
    coming = sum(s.units[i].models_alive for i in s.group(unit))
    cap = s.specs[transport].transport_capacity
    if load + coming > cap:
        raise refuse(
            Code.TRANSPORT_FULL,
            f"{s.specs[transport].name} carries {cap} models: {load} aboard, "
            f"{coming} more do not fit",
        )


def _disembark(b: Builder, cmd: Disembark) -> None:
    """[L1239-1286], the table in note 1 §5.7."""
    need_phase(b, Phase.MOVEMENT, Step.MOVE_UNITS)
    need_active(b)
    no_pending(b)
    u = need_own(b, cmd.unit)
    s = b.state
    name = s.specs[cmd.unit].name
    if not u.alive or u.location is not Location.EMBARKED or u.embarked_in is None:
        raise refuse(Code.NOT_EMBARKED, f"{name} is not embarked")
    if u.embarked_this_phase:
        raise refuse(Code.CANNOT_DISEMBARK, f"{name} embarked this phase: it cannot disembark now")
    t = s.units[u.embarked_in]
    if not s.on_battlefield(t.id):
        raise refuse(Code.CANNOT_DISEMBARK, f"{s.specs[t.id].name} is not on the battlefield")
    if t.move in (MoveMode.ADVANCE, MoveMode.FALL_BACK):
        raise refuse(
            Code.CANNOT_DISEMBARK,
            f"{s.specs[t.id].name} Advanced or Fell Back this turn [L1268-1269]",
        )
    moved = t.move is MoveMode.NORMAL or t.arrived
    b.emit(UnitDisembarked(s.group(cmd.unit), t.id, counts_as_moved=moved))


def _disembark_destroyed(b: Builder, cmd: DisembarkFromDestroyedTransport) -> None:
    """[L1309-1370]: D6 per model, 1 (1-3 in an Emergency Disembarkation) = 1 mortal wound;
    models that cannot be placed are destroyed; the unit is Battle-shocked."""
    need_battle(b)
    u = need_own(b, cmd.unit)
    s = b.state
    if s.demises:  # Deadly Demise is resolved before the passengers disembark [L1315-1317]
        no_pending(b)
    if not u.transport_destroyed or not u.alive or u.embarked_in is None:
        raise refuse(Code.NOT_EMBARKED, f"{s.specs[cmd.unit].name} is not in a destroyed Transport")
    group = tuple(i for i in s.group(cmd.unit) if s.units[i].transport_destroyed)
    alive = sum(s.units[i].models_alive for i in group)
    if not 0 <= cmd.not_placed <= alive or (cmd.not_placed and not cmd.emergency):
        raise refuse(Code.BAD_COMMAND, f"not_placed must be 0..{alive}, in an emergency only")
    lost = casualty_slots(s, cmd.unit, cmd.not_placed)
    after = apply_damage(s, lost)
    placed = alive - cmd.not_placed
    roll = b.roll(placed, 6, "destroyed transport")
    limit = 3 if cmd.emergency else 1
    mortal = sum(1 for v in roll.values if v <= limit)
    fnp = b.feel_no_pain()
    damage = tuple(lost) + tuple(allocate(after, cmd.unit, (), mortal_wounds=mortal, ignores=fnp))
    b.emit(
        UnitDisembarked(
            group,
            u.embarked_in,
            forced=True,
            emergency=cmd.emergency,
            roll=roll,
            damage=damage,
            fnp=fnp.roll,
        )
    )


_DEMISE = re.compile(r"(?:(\d*)D([36]))?\+?(\d+)?")


def _demise_mortal_wounds(b: Builder, x: str, unit: str) -> tuple[int, Roll]:
    """The mortal wounds one unit suffers from a Deadly Demise x (x rolled for each unit when
    random [L1879-1882])."""
    m = _DEMISE.fullmatch(x)
    assert m is not None  # checked by UnitSpec
    count, sides, plus = m.group(1), m.group(2), int(m.group(3) or 0)
    if sides is None:
        return plus, b.roll(0, 6, "deadly demise")
    roll = b.roll(int(count or 1), int(sides), f"deadly demise {x} ({unit})")
    return roll.total + plus, roll


def _deadly_demise(b: Builder, cmd: DeadlyDemise) -> None:
    """[L1876-1893]: on a 6, each unit within 6" (friend or foe, the controller names them)
    suffers x mortal wounds; Feel No Pain applies [L1857-1869]."""
    need_battle(b)
    need_unit(b, cmd.unit)
    s = b.state
    if cmd.unit not in s.demises:
        raise refuse(
            Code.NO_DEADLY_DEMISE,
            f"{s.specs[cmd.unit].name} has no Deadly Demise waiting to be resolved",
        )
    if s.units[cmd.unit].owner is not b.actor:
        raise refuse(
            Code.NOT_YOUR_UNIT,
            f"{s.specs[cmd.unit].name} is your opponent's: they resolve its Deadly Demise",
        )
    if s.demises[0] != cmd.unit:
        no_pending(b)  # names the one to resolve first
    if len(cmd.units) > 40 or len(set(cmd.units)) != len(cmd.units):
        raise refuse(Code.BAD_TARGET, 'name each unit within 6" once (at most 40)')
    targets: list[str] = []
    for t in cmd.units:
        need_unit(b, t)
        if t == cmd.unit:
            raise refuse(Code.BAD_TARGET, f"{s.specs[t].name} is the destroyed unit itself")
        if not s.on_battlefield(t):
            raise refuse(
                Code.BAD_TARGET,
                f"{s.specs[t].name} is not on the battlefield (units embarked in a destroyed "
                "Transport are not affected [L1315-1317])",
            )
        if head(s, t) in targets:
            raise refuse(Code.BAD_TARGET, f"{s.specs[t].name} is named twice (Attached unit)")
        targets.append(head(s, t))
    x = s.specs[cmd.unit].deadly_demise
    b.emit(DeadlyDemiseResolved(cmd.unit, tuple(targets)))
    for t in targets:
        mortal, roll = _demise_mortal_wounds(b, x, t)
        fnp = b.feel_no_pain()
        damage = tuple(allocate(b.state, t, (), mortal_wounds=mortal, ignores=fnp))
        b.emit(MortalWoundsInflicted("deadly_demise", t, roll, mortal, damage, fnp.roll))


def _arrive(b: Builder, cmd: ArriveFromReserves) -> None:
    need_phase(b, Phase.MOVEMENT)
    need_active(b)
    no_pending(b)
    u = need_own(b, cmd.unit)
    s = b.state
    if s.narrative is not None and cmd.unit in s.narrative.reserves:
        raise refuse(
            Code.NOT_IN_RESERVES,
            f"{s.specs[cmd.unit].name} is in the mission's reserves: use reserve_roll",
        )
    if u.location is not Location.RESERVES or not u.alive or u.reserve is None:
        raise refuse(Code.NOT_IN_RESERVES, f"{s.specs[cmd.unit].name} is not in Reserves")
    ok, first = reserve_round_ok(s, u)
    if not ok:
        raise refuse(
            Code.RESERVES_NOT_YET,
            f"{s.specs[cmd.unit].name} ({u.reserve} reserves) cannot arrive before battle round "
            f"{first}",
        )
    if s.step is Step.MOVE_UNITS:
        b.emit(StepStarted(Step.REINFORCEMENTS))
    b.emit(UnitArrived(s.group(cmd.unit), u.reserve))


def _end_phase(b: Builder, cmd: EndPhase) -> None:
    need_active(b)
    no_pending(b)
    s = b.state
    phase = s.phase
    if phase is Phase.COMMAND:
        pending = shock_tests_pending(s)
        if pending:
            raise refuse(
                Code.SHOCK_TESTS_PENDING,
                f"{len(pending)} unit(s) Below Half-strength must take a Battle-shock test",
                units=list(pending),
            )
    elif phase is Phase.MOVEMENT:
        late = [
            u.id
            for u in s.units_of(b.actor)
            if u.must_arrive is not None
            and u.must_arrive <= s.round
            and u.location is Location.RESERVES
        ]
        if late:
            raise refuse(
                Code.AIRCRAFT_MUST_ARRIVE,
                "an Aircraft that left the battlefield must arrive this turn [L4089-4091]",
                units=late,
            )
        if _rapid_ingress_possible(s, other(b.actor)):
            b.emit(ReactionWindowOpened(other(b.actor)))
            return
    elif phase is Phase.FIGHT:
        assert s.fight is not None
        if s.fight.current is not None:
            raise refuse(Code.FIGHT_IN_PROGRESS, "the fighting unit must consolidate first")
        step, seat = fight_turn(s)
        if seat is not None:
            raise refuse(
                Code.FIGHT_UNITS_REMAINING,
                "eligible units must still fight: a player cannot pass [L2579-2584]",
                units=fight_candidates(s, seat, step),
            )
        if _open_coherency_check(b):
            return
    end_phase(b)


def _open_coherency_check(b: Builder) -> bool:
    """The end of the turn [L449-456]: when a player has units that lost models this turn,
    ask them (each player concerned) to confirm coherency before the turn ends. Matches
    recorded before the check existed (option unset) end the turn at once."""
    s = b.state
    assert s.setup is not None
    if not s.setup.options.coherency_check:
        return False
    units = {seat: s.coherency_units(seat) for seat in (Seat.A, Seat.B)}
    seats = tuple(seat for seat in (Seat.A, Seat.B) if units[seat])
    if not seats:
        return False
    b.emit(CoherencyCheckOpened(seats, tuple(units[Seat.A] + units[Seat.B])))
    return True


def _confirm_coherency(b: Builder, cmd: ConfirmCoherency) -> None:
    """[L449-456]: each player concerned removes models, one unit at a time, until each of
    their units is one coherent group; the models removed count as destroyed but trigger no
    "when destroyed" rule. The turn ends when every player concerned has confirmed."""
    need_battle(b)
    s = b.state
    if b.actor not in s.coherency:
        raise refuse(Code.NO_COHERENCY_CHECK, "no coherency check waits for you")
    named = set(s.coherency_units(b.actor))
    seen: set[str] = set()
    removed = 0
    left: dict[str, int] = {}
    for r in cmd.removals:
        need_own(b, r.unit)
        head_id = s.group(r.unit)[0]
        if head_id not in named:
            raise refuse(
                Code.BAD_CASUALTIES,
                f"{s.specs[r.unit].name} lost no models this turn: it is in coherency",
                unit=r.unit,
            )
        if r.unit in seen:
            raise refuse(Code.BAD_COMMAND, f"{r.unit!r} is listed twice", unit=r.unit)
        seen.add(r.unit)
        _check_removal(b, r)
        group_alive = left.get(head_id, sum(s.units[i].models_alive for i in s.group(head_id)))
        left[head_id] = group_alive - len(r.models)
        if left[head_id] < 1:
            raise refuse(
                Code.BAD_CASUALTIES,
                f"{s.specs[r.unit].name}: one model at least stays (a coherent group remains)",
                unit=r.unit,
            )
        removed += len(r.models)
    for r in cmd.removals:
        b.emit(ModelsRemoved(r.unit, tuple(sorted(r.models)), "coherency"))
    b.emit(CoherencyConfirmed(b.actor, removed))
    if not b.state.coherency:
        end_phase(b)


def _check_removal(b: Builder, r: Removal) -> None:
    u = b.state.units[r.unit]
    if not r.models or any(not 0 <= m < len(u.wounds) or u.wounds[m] <= 0 for m in r.models):
        raise refuse(Code.BAD_CASUALTIES, "name living model slots to remove", unit=r.unit)
    if len(set(r.models)) != len(r.models):
        raise refuse(Code.BAD_CASUALTIES, "a model slot is named twice", unit=r.unit)


def _rapid_ingress_possible(s: BattleState, seat: Seat) -> bool:
    assert s.setup is not None
    if not s.setup.options.prompt_rapid_ingress:
        return False
    p = s.players[seat]
    spec = STRATAGEMS["rapid_ingress"]
    if p.cp < spec.cp or spec.id in p.used_this_phase:
        return False
    return any(
        u.location is Location.RESERVES and u.alive and reserve_round_ok(s, u)[0]
        for u in s.units_of(seat)
    )


def _pass(b: Builder, cmd: Pass) -> None:
    need_battle(b)
    if b.state.window is not b.actor:
        raise refuse(Code.NO_REACTION_WINDOW, "nothing is waiting for you")
    b.emit(ReactionWindowClosed(b.actor))
    end_phase(b)


# -- shooting --------------------------------------------------------------------------------


def _targets(b: Builder, targets: tuple[str, ...], limit: int = 20) -> list[str]:
    if not targets or len(targets) > limit:
        raise refuse(Code.BAD_TARGET, f"name 1 to {limit} target units")
    for t in targets:
        need_enemy(b, t)
    return list(dict.fromkeys(targets))


def _expand(s: BattleState, ids: list[str]) -> tuple[str, ...]:
    out: list[str] = []
    for i in ids:
        for g in s.group(i):
            if g not in out:
                out.append(g)
    return tuple(out)


def _shoot(b: Builder, cmd: Shoot) -> None:
    need_phase(b, Phase.SHOOTING)
    need_active(b)
    no_pending(b)
    need_own(b, cmd.unit)
    s = b.state
    problem = shoot_problem(s, cmd.unit, assault_only=cmd.assault_only)
    if problem:
        raise refuse(*problem)
    targets = _targets(b, cmd.targets)
    for t in targets:
        problem = shoot_target_problem(s, cmd.unit, t) or lone_operative_problem(
            s, t, within_12=cmd.within_12
        )
        if problem:
            raise refuse(*problem)
    if s.narrative is not None:
        narrative_rules.before_shoot(b, cmd.unit, targets)
    if pistols_only(s, cmd.unit) and len({head(s, t) for t in targets}) > 1:
        raise refuse(
            Code.BAD_TARGET,
            f"{s.specs[cmd.unit].name} is within Engagement Range: its Pistols target one of "
            "the enemy units it is engaged with, not several [L2066-2072]",
        )
    b.emit(
        UnitSelectedToShoot(s.group(cmd.unit), _expand(s, targets), assault_only=cmd.assault_only)
    )


def _resolve_attack(b: Builder, cmd: ResolveAttack) -> None:
    need_battle(b)
    no_pending(b, charge=False)
    att = need_own(b, cmd.attacker)
    need_enemy(b, cmd.target)
    s = b.state
    if cmd.target not in att.targets:
        raise refuse(
            Code.ATTACK_NOT_DECLARED,
            f"{s.specs[cmd.target].name} was not declared as a target of "
            f"{s.specs[cmd.attacker].name} this phase",
        )
    if s.phase is Phase.FIGHT and att.fought:
        fight = s.fight
        if fight is None or fight.current not in s.group(cmd.attacker):
            raise refuse(Code.NOT_FIGHTING, f"{s.specs[cmd.attacker].name} has finished fighting")
    attacker, target = head(s, cmd.attacker), head(s, cmd.target)
    refusal = weapons_refusal(s, cmd.attacker, cmd.weapons)
    if refusal is not None:
        raise refusal
    if cmd.allocations and (cmd.damage or cmd.mortal_wounds):
        raise refuse(Code.BAD_ALLOCATION, "give either allocations, or damage and mortal_wounds")
    if any(d < 0 or d > 100 for d in cmd.damage) or not 0 <= cmd.mortal_wounds <= MAX_ITEMS:
        raise refuse(Code.BAD_ALLOCATION, "damage per attack is 0..100, mortal wounds 0..1000")
    if cmd.seed is not None and not 0 <= cmd.seed < 2**63:
        raise refuse(Code.BAD_COMMAND, "an attack's seed is a whole number from 0 to 2^63 - 1")
    if cmd.allocations:
        damage = _check_allocations(s, cmd.target, cmd.allocations)
    else:
        damage = allocate(s, cmd.target, cmd.damage, cmd.mortal_wounds)
    if s.narrative is not None:
        narrative_rules.before_attack(b, cmd)
    after = apply_damage(s, damage)
    group = s.group(cmd.target)
    destroyed = sum(s.units[i].models_alive - after.units[i].models_alive for i in group)
    b.emit(
        AttackResolved(
            attacker,  # an Attached unit attacks and is attacked as one unit
            target,
            tuple(damage),
            sum(d.damage for d in damage),
            destroyed,
            cmd.weapon,
            cmd.seed,
            cmd.dice,
            cmd.request,
            cmd.weapons,
        )
    )
    if b.state.narrative is not None:
        narrative_rules.track_destroyed(b)
        narrative_rules.after_attack(b, cmd.attacker)


def _check_allocations(
    s: BattleState, target: str, allocations: tuple[ModelDamage, ...]
) -> list[ModelDamage]:
    group = set(s.group(target))
    wounds = {i: list(s.units[i].wounds) for i in group}
    out: list[ModelDamage] = []
    for n, a in enumerate(allocations):
        if a.unit not in group:
            raise refuse(
                Code.BAD_ALLOCATION, f"allocation {n}: {a.unit!r} is not part of the target"
            )
        if not 0 <= a.model < len(wounds[a.unit]) or a.damage < 1:
            raise refuse(
                Code.BAD_ALLOCATION, f"allocation {n}: no model slot {a.model} or damage < 1"
            )
        left = wounds[a.unit][a.model]
        if left <= 0:
            raise refuse(
                Code.BAD_ALLOCATION, f"allocation {n}: model {a.model} is already destroyed"
            )
        dealt = min(left, a.damage)  # excess damage is lost [L1788-1790]
        wounds[a.unit][a.model] = left - dealt
        out.append(ModelDamage(a.unit, a.model, dealt))
    return out


def _hazardous(b: Builder, cmd: HazardousTest) -> None:
    need_battle(b)
    no_pending(b, charge=False)
    u = need_own(b, cmd.unit)
    need_alive(b, cmd.unit)
    s = b.state
    if not (u.shot or u.fought):
        raise refuse(
            Code.ATTACK_NOT_DECLARED, f"{s.specs[cmd.unit].name} has not shot or fought this phase"
        )
    if not 1 <= cmd.weapons <= 50:
        raise refuse(Code.BAD_COMMAND, "weapons must be 1..50")
    if cmd.on_unit is not None and cmd.on_unit not in s.group(cmd.unit):
        raise refuse(Code.BAD_COMMAND, f"{cmd.on_unit!r} is not part of this unit")
    roll = b.roll(cmd.weapons, 6, "hazardous")
    fnp = b.feel_no_pain()
    losses = roll_losses(s, cmd.unit, "hazardous", roll.values, on_unit=cmd.on_unit, ignores=fnp)
    b.emit(HazardousTested(s.group(cmd.unit), roll, losses, fnp.roll))


# -- charge ----------------------------------------------------------------------------------


def _declare_charge(b: Builder, cmd: DeclareCharge) -> None:
    need_phase(b, Phase.CHARGE)
    need_active(b)
    no_pending(b)
    need_own(b, cmd.unit)
    s = b.state
    problem = charge_problem(s, cmd.unit)
    if problem:
        raise refuse(*problem)
    targets = _targets(b, cmd.targets, limit=10)
    for t in targets:
        problem = charge_target_problem(s, cmd.unit, t)
        if problem:
            raise refuse(*problem)
    roll = b.roll(2, 6, "charge")
    b.emit(ChargeDeclared(s.group(cmd.unit), _expand(s, targets), roll))


def _complete_charge(b: Builder, cmd: CompleteCharge) -> None:
    need_battle(b)
    s = b.state
    charge = s.charge
    if charge is None:
        raise refuse(Code.NO_CHARGE_IN_PROGRESS, "no charge is waiting to be completed")
    if charge.seat is not b.actor:
        raise refuse(Code.NOT_YOUR_UNIT, "the charging unit is your opponent's")
    need_unit(b, cmd.unit)
    if cmd.unit not in s.group(charge.unit):
        raise refuse(
            Code.CHARGE_IN_PROGRESS, f"the charge in progress is {s.specs[charge.unit].name}'s"
        )
    no_pending(b, charge=False)
    roll = charge.roll + narrative_zones.charge_modifier(s)  # a combat zone's Grav-wave
    if cmd.success and cmd.needed is not None and roll < cmd.needed:
        raise refuse(
            Code.CHARGE_ROLL_TOO_LOW,
            f'the charge roll was {roll}: it cannot cover {cmd.needed}"',
        )
    targets = tuple(t for t in charge.targets if s.units[t].alive)
    b.emit(ChargeMoveMade(s.group(charge.unit), cmd.success, targets if cmd.success else ()))


# -- fight -----------------------------------------------------------------------------------


def _fight(b: Builder, cmd: Fight) -> None:
    need_phase(b, Phase.FIGHT)
    no_pending(b)
    need_own(b, cmd.unit)
    s = b.state
    fight = s.fight
    assert fight is not None
    if fight.current is not None:
        raise refuse(
            Code.FIGHT_IN_PROGRESS, f"{s.specs[fight.current].name} must consolidate first"
        )
    unit = head(s, cmd.unit)
    name = s.specs[unit].name
    if s.units[unit].fought:
        raise refuse(Code.ALREADY_FOUGHT, f"{name} has already fought this phase")
    if not fight_eligible(s, unit):
        raise refuse(
            Code.NOT_ELIGIBLE_TO_FIGHT, f"{name} is not in Engagement Range and did not charge"
        )
    step, seat = fight_turn(s)
    if fight.next_unit is not None:
        if fight.next_unit != unit:
            if s.units[fight.next_unit].owner is b.actor:
                raise refuse(Code.MUST_FIGHT_NEXT, f"{s.specs[fight.next_unit].name} fights next")
            raise refuse(Code.NOT_YOUR_TURN, "your opponent's unit fights next (Counter-offensive)")
    else:
        if seat is not b.actor:
            raise refuse(Code.NOT_YOUR_TURN, "your opponent selects the next unit to fight")
        if unit not in fight_candidates(s, b.actor, step):
            raise refuse(
                Code.NOT_ELIGIBLE_TO_FIGHT, f"{name} does not have Fights First: it fights later"
            )
    targets: list[str] = []
    if cmd.targets:
        targets = _targets(b, cmd.targets, limit=10)
        engaged = set(s.engaged_units(unit))
        for t in targets:
            if t not in engaged:
                raise refuse(Code.BAD_TARGET, f"{s.specs[t].name} is not within Engagement Range")
            problem = melee_target_problem(s, unit, t)
            if problem:
                raise refuse(*problem)
    if step is not fight.step:
        b.emit(StepStarted(step))
    b.emit(UnitSelectedToFight(s.group(unit), b.actor, step, _expand(s, targets)))


def _consolidate(b: Builder, cmd: Consolidate) -> None:
    need_phase(b, Phase.FIGHT)
    need_own(b, cmd.unit)
    s = b.state
    if s.fight is None or s.fight.current not in s.group(cmd.unit):
        raise refuse(Code.NOT_FIGHTING, f"{s.specs[cmd.unit].name} is not fighting now")
    engaged: tuple[str, ...] | None = None
    if cmd.engaged_with is not None:
        engaged = _engagement_list(b, cmd.engaged_with)
    b.emit(UnitConsolidated(s.group(cmd.unit), engaged))


def _engagement_list(b: Builder, enemies: tuple[str, ...]) -> tuple[str, ...]:
    if len(enemies) > 20:
        raise refuse(Code.BAD_TARGET, "at most 20 enemy units")
    for e in enemies:
        need_enemy(b, e)
        if not b.state.on_battlefield(e):
            raise refuse(Code.BAD_TARGET, f"{b.state.specs[e].name} is not on the battlefield")
    return _expand(b.state, list(dict.fromkeys(enemies)))


def _report_engagement(b: Builder, cmd: ReportEngagement) -> None:
    need_battle(b)
    need_own(b, cmd.unit)
    need_alive(b, cmd.unit)
    enemies = _engagement_list(b, cmd.engaged_with)
    b.emit(EngagementReported(b.state.group(cmd.unit), enemies))


# -- objectives, other -----------------------------------------------------------------------


def _report_objective(b: Builder, cmd: ReportObjective) -> None:
    need_battle(b)
    s = b.state
    if cmd.marker not in s.markers:
        raise refuse(Code.UNKNOWN_MARKER, f"there is no objective marker {cmd.marker!r}")
    seen: set[str] = set()
    for p in cmd.units:
        need_own(b, p.unit)
        need_alive(b, p.unit)
        if p.unit in seen:
            raise refuse(Code.BAD_COMMAND, f"{p.unit!r} is listed twice")
        seen.add(p.unit)
        alive = s.units[p.unit].models_alive
        if p.models is not None and not 1 <= p.models <= alive:
            raise refuse(
                Code.BAD_COMMAND, f"{s.specs[p.unit].name} has {alive} models, not {p.models}"
            )
    b.emit(PresenceReported(cmd.marker, b.actor, cmd.units))


def _remove_models(b: Builder, cmd: RemoveModels) -> None:
    need_battle(b)
    u = need_own(b, cmd.unit)
    if not cmd.models or any(not 0 <= m < len(u.wounds) or u.wounds[m] <= 0 for m in cmd.models):
        raise refuse(Code.BAD_CASUALTIES, "name living model slots to remove")
    if len(set(cmd.models)) != len(cmd.models):
        raise refuse(Code.BAD_CASUALTIES, "a model slot is named twice")
    b.emit(ModelsRemoved(cmd.unit, tuple(sorted(cmd.models)), cmd.cause))


def _concede(b: Builder, cmd: Concede) -> None:
    if b.state.stage is Stage.ENDED:
        raise refuse(Code.BATTLE_OVER, "the battle is over")
    end_battle(b, "concession", loser=b.actor)


def _confirm(b: Builder, cmd: ConfirmResult) -> None:
    if b.state.stage is not Stage.ENDED:
        raise refuse(Code.BATTLE_NOT_OVER, "the battle is not over yet")
    if b.state.players[b.actor].result == "confirmed":
        raise refuse(Code.RESULT_SETTLED, "you have already confirmed the result")
    b.emit(ResultConfirmed(b.actor))


def _dispute(b: Builder, cmd: DisputeResult) -> None:
    if b.state.stage is not Stage.ENDED:
        raise refuse(Code.BATTLE_NOT_OVER, "the battle is not over yet")
    if not cmd.reason.strip():
        raise refuse(Code.BAD_COMMAND, "say why you dispute the result")
    b.emit(ResultDisputed(b.actor, cmd.reason.strip()))


_COMMANDS: dict[type[Tagged], Callable[[Builder, Any], None]] = {
    CreateMatch: _create,
    RollOff: _roll_off,
    PlaceObjective: _place_objective,
    DeclareFormations: _declare_formations,
    DeployUnit: _deploy,
    ScoutMove: _scout_move,
    EndScouts: _end_scouts,
    BattleShockTest: _battle_shock_test,
    GainCommandPoint: _gain_cp,
    StartMove: _start_move,
    Move: _move,
    Disembark: _disembark,
    DisembarkFromDestroyedTransport: _disembark_destroyed,
    ArriveFromReserves: _arrive,
    EndPhase: _end_phase,
    Pass: _pass,
    Shoot: _shoot,
    ResolveAttack: _resolve_attack,
    HazardousTest: _hazardous,
    DeclareCharge: _declare_charge,
    CompleteCharge: _complete_charge,
    Fight: _fight,
    Consolidate: _consolidate,
    DeadlyDemise: _deadly_demise,
    ReportEngagement: _report_engagement,
    ReportObjective: _report_objective,
    UseStratagem: use_stratagem,
    RemoveModels: _remove_models,
    ConfirmCoherency: _confirm_coherency,
    Concede: _concede,
    ConfirmResult: _confirm,
    DisputeResult: _dispute,
    **narrative_rules.COMMANDS,
}


def _check_bounds(command: Tagged) -> None:
    """No command may carry more than MAX_ITEMS items or MAX_TEXT characters of text."""
    for f in fields(command):  # type: ignore[arg-type]
        value = getattr(command, f.name)
        if isinstance(value, str) and len(value) > MAX_TEXT:
            raise refuse(Code.BAD_COMMAND, f"{f.name} is longer than {MAX_TEXT} characters")
        if isinstance(value, tuple) and len(value) > 5 * MAX_ITEMS:
            raise refuse(Code.BAD_COMMAND, f"{f.name} has more than {5 * MAX_ITEMS} items")


def decide(state: BattleState, command: Tagged, actor: str, dice: Roller) -> Decision[BattleState]:
    """The events ``command`` by ``actor`` produces, or a coded refusal."""
    seat = seat_of(actor)
    handler = _COMMANDS.get(type(command))
    if handler is None:
        raise refuse(Code.BAD_COMMAND, f"{type(command).__name__} is not a match command")
    if state.setup is None and not isinstance(command, CreateMatch):
        raise refuse(Code.MATCH_NOT_CREATED, "the match has not been created")
    _check_bounds(command)
    if state.coherency and not isinstance(command, ConfirmCoherency | Concede):
        raise refuse(
            Code.COHERENCY_PENDING,
            "the turn is ending: first confirm unit coherency (players: "
            + ", ".join(str(x) for x in state.coherency)
            + ")",
            seats=[str(x) for x in state.coherency],
        )
    b = Builder(state, seat, dice)
    handler(b, command)
    if b.state.narrative is not None:
        narrative_rules.track_destroyed(b)
    else:  # Only War in a combat zone: Night Fight's fog of war on an arrival (ruling 96)
        narrative_rules.fog_on_core_arrivals(b)
    finish(b)
    return Decision(tuple(b.out), b.state)


class BattleRuleBook:
    """The 10th-edition battle, for :class:`app.engine.match.log.Match`."""

    rule_system = "wh40k-10e"
    event_codec: TaggedCodec = EVENT_CODEC
    command_codec: TaggedCodec = COMMAND_CODEC

    def initial_state(self) -> BattleState:
        return BattleState()

    def evolve(self, state: BattleState, event: Event) -> BattleState:
        return evolve(state, event)

    def decide(
        self, state: BattleState, command: Tagged, actor: str, dice: Roller
    ) -> Decision[BattleState]:
        return decide(state, command, actor, dice)


RULE_BOOK = BattleRuleBook()
