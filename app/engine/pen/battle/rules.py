"""``decide``: every command checked against the state, then turned into events.

The attacks are rolled by the PEN engine (:func:`app.engine.pen.live.resolve`) on a request
built from the squads' profiles and the tracked state (night, speeds, gone to ground, hidden,
vehicle damage); the player states what the table shows (range, cover, facing).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from app.engine.errors import ProfileError
from app.engine.match.codec import Tagged, TaggedCodec
from app.engine.match.dice import Roll, take_roll
from app.engine.match.errors import Refusal, RefusalKind
from app.engine.match.events import Emitted, Event
from app.engine.match.log import Decision
from app.engine.pen import rolls, tables
from app.engine.pen.attack import melee_initiatives
from app.engine.pen.battle.commands import (
    COMMAND_CODEC,
    AnswerChallenge,
    Arrive,
    Challenge,
    Charge,
    ChooseFirst,
    ConfirmResult,
    Consolidate,
    CreateBattle,
    DeclareReserve,
    Deploy,
    Disembark,
    Disengage,
    Embark,
    EndActivation,
    EndPhase,
    EndStep,
    Fight,
    GoOnAlert,
    GoToGround,
    HitAndRun,
    Move,
    Ram,
    ReportControl,
    Retreat,
    RollOff,
    ScoutMove,
    Shoot,
    StartTurn,
)
from app.engine.pen.battle.events import (
    EVENT_CODEC,
    NO_DICE,
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
    SquadOutcome,
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
from app.engine.pen.battle.evolve import evolve
from app.engine.pen.battle.moves import moves
from app.engine.pen.battle.setup import SEATS, other
from app.engine.pen.battle.state import (
    BattleState,
    Phase,
    Place,
    ReserveMode,
    Speed,
    Stage,
    UnitState,
)
from app.engine.pen.live import resolve, strike
from app.engine.pen.names import Rule
from app.engine.pen.profiles import (
    AttackRequest,
    Facing,
    Unit,
    UnitType,
    Vehicle,
    VehicleType,
)
from app.engine.pen.requests import request_from_dict
from app.engine.pen.vehicles import Penetration
from app.engine.roller import Roller

__all__ = ["RULE_BOOK", "PenRuleBook", "decide", "victory_points"]

MAX_INCHES = 72
# the damage results that move down a row when repeated in the same turn [L1460]
_REPEATING = frozenset(
    {
        "shaken",
        "weapons_damaged",
        "weapon_destroyed",
        "driver_stunned",
        "reduced_mobility",
        "immobilised",
    }
)
SYSTEM_ID = "pen"


def _int(value: object) -> int:
    return value if isinstance(value, int) else 0


def refuse(code: str, message: str, *, kind: RefusalKind = RefusalKind.RULES) -> Refusal:
    return Refusal(code, message, kind=kind)


class _Out:
    """Events being decided, with the state after each (``evolve`` applied as we go)."""

    def __init__(self, state: BattleState, roller: Roller) -> None:
        self.state = state
        self.roller = roller
        self.events: list[Emitted] = []

    def emit(self, event: Event) -> None:
        self.state = evolve(self.state, event)
        self.events.append(Emitted(event))

    def mark(self) -> int:
        return len(self.roller.records)

    def roll_since(self, start: int) -> Roll:
        return take_roll(self.roller, start)


# -- checks ----------------------------------------------------------------------------------


def _unit(state: BattleState, unit: str) -> UnitState:
    if unit not in state.units:
        raise refuse("unknown_unit", f"there is no squad {unit!r}", kind=RefusalKind.INPUT)
    return state.units[unit]


def _own(state: BattleState, unit: str, actor: str) -> UnitState:
    me = _unit(state, unit)
    if me.seat != actor:
        raise refuse("not_your_unit", f"{unit} is not yours", kind=RefusalKind.FORBIDDEN)
    return me


def _stage(state: BattleState, *stages: Stage) -> None:
    if state.stage not in stages:
        raise refuse("wrong_stage", f"not now: the battle is at {state.stage}")


def _turn(state: BattleState, actor: str, phase: Phase) -> None:
    _stage(state, Stage.BATTLE)
    if state.active_seat != actor:
        raise refuse("not_your_turn", "it is your opponent's turn", kind=RefusalKind.FORBIDDEN)
    if state.phase is not phase:
        raise refuse("wrong_phase", f"not in the {state.phase} phase")


def _inches(value: int, limit: int, what: str) -> None:
    if not 0 <= value <= min(limit, MAX_INCHES):
        raise refuse("too_far", f"{what}: {value} ps is more than the {limit} ps allowed")


def _ld(state: BattleState, unit: UnitState) -> int | None:
    return getattr(_profile(state, unit), "leadership", None)


def _profile(state: BattleState, unit: UnitState) -> Any:
    from app.engine.pen.battle.setup import profile_of

    return profile_of(state.unit_spec(unit.id), max(unit.models, 1))


def _fearless(unit: UnitState) -> bool:
    return bool({str(Rule.FEARLESS), str(Rule.ATSKNF)} & unit.rules)


def _test(out: _Out, unit: UnitState, test: str, malus: int) -> bool:
    """A morale / pinning / regroup Leadership test; fearless squads pass [L455], [L418]."""
    start = out.mark()
    passed = (test != "pinning" and _fearless(unit)) or rolls.ld_test_procedure(
        out.roller, _ld(out.state, unit), malus, test
    )
    out.emit(TestTaken(unit.id, test, out.roll_since(start), malus, passed))
    return passed


def in_reserve(state: BattleState, unit: UnitState) -> bool:
    """Waiting in reserve, or carried by a transport waiting in reserve."""
    if unit.place is Place.EMBARKED and unit.transport is not None:
        return state.units[unit.transport].place is Place.RESERVE
    return unit.place is Place.RESERVE


def _reserve_cost(state: BattleState, seat: str) -> tuple[int, int]:
    army = [u for u in state.units.values() if u.seat == seat]
    total = sum(state.unit_spec(u.id).points for u in army)
    kept = sum(state.unit_spec(u.id).points for u in army if in_reserve(state, u))
    return kept, total


def must_play_second(state: BattleState) -> str | None:
    """The seat that keeps more than half its army's cost in reserve when the other does
    not: it must play second [L834]."""
    heavy = [s for s in SEATS if 2 * _reserve_cost(state, s)[0] > _reserve_cost(state, s)[1]]
    return heavy[0] if len(heavy) == 1 else None


# -- set-up ----------------------------------------------------------------------------------


def _create(out: _Out, cmd: CreateBattle) -> None:
    _stage(out.state, Stage.CREATED)
    problems = cmd.setup.problems()
    if problems:
        raise Refusal(
            "bad_setup",
            "; ".join(f"{p}: {m}" for p, m in problems),
            kind=RefusalKind.INPUT,
            details={"errors": [{"field": p, "message": m} for p, m in problems]},
        )
    setup = cmd.setup
    if setup.seed_moves is None:  # recorded: a replay never depends on a default (B37)
        setup = replace(setup, seed_moves=True)
    if setup.first_turn_protection is None:  # recorded likewise (B8)
        setup = replace(setup, first_turn_protection=True)
    out.emit(BattleCreated(setup))


def _declare_reserve(out: _Out, cmd: DeclareReserve, actor: str) -> None:
    _stage(out.state, Stage.RESERVES)
    me = _own(out.state, cmd.unit, actor)
    if actor in out.state.ready:
        raise refuse("step_done", "you have ended this step")
    if me.place is Place.EMBARKED:
        raise refuse("embarked", f"{cmd.unit} is carried: it comes on with its transport")
    if cmd.mode is ReserveMode.OUTFLANK and not {str(Rule.INFILTRATE), str(Rule.SCOUT)} & me.rules:
        raise refuse("no_outflank", "only Infiltration or Scout squads outflank [L424], [L459]")
    if cmd.mode is ReserveMode.DEEP_STRIKE and str(Rule.DEEP_STRIKE) not in me.rules:
        raise refuse("no_deep_strike", "this squad has no Deep strike [L404]")
    out.emit(ReserveDeclared(cmd.unit, cmd.mode))


_DEPLOY_ORDER = {
    False: "the first player deploys first [L832]",
    True: "the players deploy one squad each in turn [L838]",
}


def _deployer(s: BattleState) -> str:
    """The seat that deploys now: the first player, then the second [L832]; in the
    alternation mode one squad each in turn [L838]."""
    seat = (s.deploy_next if s.alternation else None) or s.first or "A"
    return seat if seat not in s.ready else other(seat)


def _choose(out: _Out, unit: str, actor: str) -> None:
    """Alternation mode: every command of the active player is about the squad being played;
    the first one chooses it among the squads not played this round [L842]."""
    s = out.state
    if not s.alternation or s.stage is not Stage.BATTLE:
        return
    if s.playing is None:
        if unit not in s.unplayed(actor):
            raise refuse("already_played", f"{unit} is not a squad of yours left to play")
        out.emit(SquadChosen(unit))
    elif s.playing != unit:
        raise refuse("one_squad", f"{s.playing} is being played: finish it first (end_phase)")


def _end_step(out: _Out, actor: str) -> None:
    s = out.state
    _stage(s, Stage.RESERVES, Stage.DEPLOY, Stage.INFILTRATE, Stage.SCOUT)
    if actor in s.ready:
        raise refuse("step_done", "you have already ended this step")
    if s.stage is Stage.DEPLOY:
        if actor != _deployer(s) and not s.alternation:
            raise refuse("not_your_turn", "the first player deploys first [L832]")
        left = [
            u.id
            for u in s.seat_units(actor)
            if u.place is Place.UNDEPLOYED and str(Rule.INFILTRATE) not in u.rules
        ]
        if left:
            raise refuse("deploy_all", f"deploy or keep in reserve: {', '.join(sorted(left))}")
    if s.stage is Stage.INFILTRATE:
        left = [u.id for u in s.seat_units(actor) if u.place is Place.UNDEPLOYED]
        if left:
            raise refuse("deploy_all", f"deploy your infiltrators: {', '.join(sorted(left))}")
    out.emit(StepEnded(actor))


def _roll_off(out: _Out) -> None:
    _stage(out.state, Stage.ROLL_OFF)
    start = out.mark()
    for attempt in range(1, 21):  # ties are re-rolled [L832]
        a = out.roller.roll(6, f"roll-off A #{attempt}", stage="roll_off")
        b = out.roller.roll(6, f"roll-off B #{attempt}", stage="roll_off")
        if a != b:
            out.emit(RollOffMade(out.roll_since(start), "A" if a > b else "B"))
            return
    raise refuse("roll_off_ties", "twenty ties in a row: roll again")


def _choose_first(out: _Out, cmd: ChooseFirst, actor: str) -> None:
    _stage(out.state, Stage.CHOOSE)
    if actor != out.state.roll_off_winner:
        raise refuse("not_your_choice", "the roll-off winner chooses", kind=RefusalKind.FORBIDDEN)
    if cmd.seat not in SEATS:
        raise refuse("bad_seat", "seat A or B", kind=RefusalKind.INPUT)
    if must_play_second(out.state) == cmd.seat:
        raise refuse(
            "must_play_second",
            "more than half of that army's cost is in reserve: it plays second [L834]",
        )
    out.emit(FirstChosen(cmd.seat))


def _deploy(out: _Out, cmd: Deploy, actor: str) -> None:
    s = out.state
    _stage(s, Stage.DEPLOY, Stage.INFILTRATE)
    me = _own(s, cmd.unit, actor)
    if me.place is not Place.UNDEPLOYED:
        raise refuse("already_placed", f"{cmd.unit} is already {me.place}")
    if s.stage is Stage.DEPLOY:
        if actor != _deployer(s):
            raise refuse("not_your_turn", _DEPLOY_ORDER[s.alternation])
        if str(Rule.INFILTRATE) in me.rules:
            raise refuse("infiltrator", "Infiltration squads deploy after the armies [L422]")
    out.emit(UnitDeployed(cmd.unit))


def _scout(out: _Out, cmd: ScoutMove, actor: str) -> None:
    _stage(out.state, Stage.SCOUT)
    me = _own(out.state, cmd.unit, actor)
    if str(Rule.SCOUT) not in me.rules or not me.on_table or me.activated:
        raise refuse("no_scout_move", "a Scout squad on the table moves once before turn 1")
    # a movement phase before turn 1 [L457]: up to its rapid move (B37)
    setup = out.state.setup
    legacy = 24 if me.is_vehicle else 12  # a log recorded before B37
    limit = _move_limit(out.state, me, Speed.RAPID) if setup and setup.seed_moves else legacy
    _inches(cmd.inches, limit, "scout move")
    out.emit(ScoutMoved(cmd.unit, cmd.inches))


# -- the turn --------------------------------------------------------------------------------


def _start_turn(out: _Out, cmd: StartTurn, actor: str) -> None:
    _turn(out.state, actor, Phase.START)
    if out.state.alternation:
        _start_round(out, cmd)
        return
    s = out.state
    if s.night and s.turn == 0:  # one roll per game round, on the first player's turn [L948]
        start = out.mark()
        die = out.roller.roll(6, f"dawn, round {s.round}", stage="dawn")
        day = die >= tables.dawn_target(s.round)
        out.roller.annotate(outcome="day" if day else "night")
        out.emit(DawnRolled(out.roll_since(start), day))
    waiting = sorted(u.id for u in s.seat_units(actor) if u.place is Place.RESERVE)
    wanted = waiting if cmd.reserves is None else list(cmd.reserves)
    for unit in wanted:
        if unit not in waiting:
            raise refuse("not_in_reserve", f"{unit} is not waiting in reserve")
    if wanted:
        start = out.mark()
        target = tables.reserve_target(s.round)
        arrived: list[str] = []
        for unit in wanted:
            if target is None:  # from the 5th turn every reserve arrives [L865]
                arrived.append(unit)
                continue
            die = out.roller.roll(6, f"reserves {unit}", stage="reserves")
            out.roller.annotate(outcome="arrives" if die >= target else "waits")
            if die >= target:
                arrived.append(unit)
        out.emit(ReservesRolled(out.roll_since(start), tuple(arrived)))
    _regenerate(out, actor)
    _poison(out)
    for unit in sorted(u.id for u in out.state.seat_units(actor) if u.retreating and u.alive):
        me = out.state.units[unit]
        malus = 1 if 2 * me.models <= me.models_start else 0  # lost >= 50% [L977]
        _test(out, me, "regroup", malus)
    out.emit(PhaseStarted(str(Phase.MOVEMENT)))


def _start_round(out: _Out, cmd: StartTurn) -> None:
    """Alternation mode: the round's roll-off (from round 2; round 1 is played in the
    set-up's order), then for both players what a turn's start does: dawn, reserves,
    regeneration, poison, regroup [L840], [L944-L978]."""
    s = out.state
    start = out.mark()
    first = s.first or "A"
    if s.round > 1:
        for attempt in range(1, 21):  # the higher D6 plays first, ties re-rolled
            a = out.roller.roll(6, f"round {s.round}: who plays first, A #{attempt}")
            b = out.roller.roll(6, f"round {s.round}: who plays first, B #{attempt}")
            if a != b:
                first = "A" if a > b else "B"
                break
        else:
            raise refuse("roll_off_ties", "twenty ties in a row: roll again")
    out.emit(RoundStarted(s.round, first, out.roll_since(start)))
    if out.state.night:
        start = out.mark()
        die = out.roller.roll(6, f"dawn, round {s.round}", stage="dawn")
        day = die >= tables.dawn_target(s.round)
        out.roller.annotate(outcome="day" if day else "night")
        out.emit(DawnRolled(out.roll_since(start), day))
    waiting = sorted(u.id for u in out.state.units.values() if u.place is Place.RESERVE)
    wanted = waiting if cmd.reserves is None else list(cmd.reserves)
    if any(unit not in waiting for unit in wanted):
        raise refuse("not_in_reserve", "only squads waiting in reserve roll to arrive")
    if wanted:
        start = out.mark()
        target = tables.reserve_target(s.round)
        arrived: list[str] = []
        for unit in wanted:
            die = 6 if target is None else out.roller.roll(6, f"reserves {unit}")
            if die >= (target or 1):
                arrived.append(unit)
        out.emit(ReservesRolled(out.roll_since(start), tuple(arrived)))
    for seat in SEATS:
        _regenerate(out, seat)
    _poison(out)
    for unit in sorted(u.id for u in out.state.units.values() if u.retreating and u.alive):
        me = out.state.units[unit]
        _test(out, me, "regroup", 1 if 2 * me.models <= me.models_start else 0)


def _regenerate(out: _Out, actor: str) -> None:
    """Régénération (X): at the start of each of its turns, a squad whose worn model lost W
    rolls 1D6; on X+ (5+ by default) it gets 1 W back [L453]. Dead models stay dead (pen
    rulings)."""
    for me in sorted(out.state.seat_units(actor), key=lambda u: u.id):
        if not me.alive or not me.wounds_taken or str(Rule.REGENERATION) not in me.rules:
            continue
        target = _profile(out.state, me).value_of(Rule.REGENERATION) or 5
        start = out.mark()
        die = out.roller.roll(6, f"regeneration {me.id} ({target}+)", stage="regeneration")
        out.roller.annotate(outcome="healed" if die >= target else "failed")
        out.emit(Regenerated(me.id, out.roll_since(start), die >= target))


def _poison(out: _Out) -> None:
    """A poisoned model (it lost a W to an Empoisonnée weapon) tests its T at the start of
    every player turn; a failure costs 1 W with no save at all [L665] (rules note §8 item 14:
    every player turn, both players)."""
    for me in sorted(out.state.units.values(), key=lambda u: u.id):
        if not me.alive or not me.poisoned:
            continue
        toughness = getattr(_profile(out.state, me), "toughness", None)
        start = out.mark()
        die = out.roller.roll(6, f"poison: T test {me.id}", stage="poison")
        value = tables.clamp_characteristic(toughness) if toughness is not None else 6
        passed = die == 1 or (die != 6 and die <= value)
        out.roller.annotate(outcome="passed" if passed else "failed")
        models, taken = me.models, me.wounds_taken
        if not passed:
            models, taken = _wound(models, taken, 1, me.wounds)
        out.emit(PoisonTested(me.id, out.roll_since(start), passed, models, taken))


def _arrive(out: _Out, cmd: Arrive, actor: str) -> None:
    _turn(out.state, actor, Phase.MOVEMENT)
    me = _own(out.state, cmd.unit, actor)
    if me.place is not Place.AVAILABLE:
        raise refuse("not_available", f"{cmd.unit} has not arrived from reserve")
    _no_open_activation(out.state, cmd.unit)
    _loose_first(out.state, actor, cmd.unit)
    mode = me.reserve or ReserveMode.STANDARD
    _inches(cmd.inches, _move_limit(out.state, me, cmd.speed), "arrival move")
    _choose(out, cmd.unit, actor)
    start = out.mark()
    edge, scatter, down = "", 0, False
    if mode is ReserveMode.OUTFLANK:
        if not cmd.edge:
            raise refuse("edge_needed", "announce the edge you want [L873]", kind=RefusalKind.INPUT)
        die = out.roller.roll(6, f"outflank {cmd.unit}", stage="outflank")
        side = tables.outflank_edge(die)
        edge = cmd.edge if side is tables.OutflankEdge.CHOSEN else str(side)
        out.roller.annotate(outcome=edge)
    elif mode is ReserveMode.DEEP_STRIKE:
        die = out.roller.roll(6, f"scatter die {cmd.unit}", stage="scatter")
        if die > 2:  # pen rulings: 1-2 read the scatter die's hit faces, 3-6 an arrow
            scatter = out.roller.roll(6, "scatter 2D6") + out.roller.roll(6, "scatter 2D6")
        down = cmd.blocked and scatter > 0
    out.emit(
        UnitArrived(
            cmd.unit, mode, cmd.speed, cmd.inches, out.roll_since(start), edge, scatter, down
        )
    )


def _move_limit(state: BattleState, me: UnitState, speed: Speed) -> int:
    """The farthest ``me`` goes at ``speed``: the seed's table by unit type [L1062-L1077]
    (pen rulings B37); a log recorded before it keeps the flat limits it was played with."""
    if speed is Speed.STATIONARY:
        return 0
    setup = state.setup
    if setup is None or not setup.seed_moves:
        if speed is Speed.NORMAL:
            return 12 if me.is_vehicle else 6
        return 36 if me.is_vehicle else 12
    normal, rapid = moves(_profile(state, me))
    return normal if speed is Speed.NORMAL else rapid


# (id of the set-up, squad) -> (that set-up, its moves): the views show every squad's moves,
# which only its profile and the set-up decide; the set-up is kept so its id stays its own
_LIMITS: OrderedDict[tuple[int, str], tuple[object, tuple[int, int]]] = OrderedDict()
_LIMITS_SIZE = 2048
_limits_lock = threading.Lock()


def move_limits(state: BattleState, unit: UnitState) -> tuple[int, int]:
    """How far ``unit`` goes at a normal and at a rapid move (B37), before terrain."""
    key = (id(state.setup), unit.id)
    with _limits_lock:
        found = _LIMITS.get(key)
        if found is not None and found[0] is state.setup:
            _LIMITS.move_to_end(key)
            return found[1]
    limits = _move_limit(state, unit, Speed.NORMAL), _move_limit(state, unit, Speed.RAPID)
    with _limits_lock:
        _LIMITS[key] = (state.setup, limits)
        while len(_LIMITS) > _LIMITS_SIZE:
            _LIMITS.popitem(last=False)
    return limits


def rapid_move(state: BattleState, unit: UnitState) -> int:
    """The farthest ``unit`` goes at a rapid move (B37): what "its maximum rapid move" reads
    for the first-turn protection [L1337]."""
    return _move_limit(state, unit, Speed.RAPID)


def first_turn_target(state: BattleState, target: UnitState) -> UnitState:
    """``target`` as the shooter's BS modifiers and the hidden rule read it: during the first
    player's first turn, an enemy squad that has not moved and made no scout move counts as
    having made its maximum rapid move [L1337] (B37); in the alternation mode, during the
    whole first round, whoever shoots (pen rulings B8, as dynamics D3). A battle recorded
    before (``first_turn_protection`` None) reads the real move."""
    setup = state.setup
    if setup is None or not setup.first_turn_protection or state.round != 1:
        return target
    if not state.alternation and state.turn != 0:
        return target
    if target.speed is not None or target.scouted:
        return target
    return replace(target, speed=Speed.RAPID, moved=rapid_move(state, target))


def _loose_first(state: BattleState, actor: str, unit: str) -> None:
    """Out-of-control squads are played first in the movement phase [L995]."""
    loose = sorted(
        u.id
        for u in state.seat_units(actor)
        if u.out_of_control
        and u.on_table
        and not u.activated
        and not u.immobilised
        and not u.locked
    )
    if loose and unit not in loose:
        raise refuse("out_of_control_first", f"{', '.join(loose)} must ram first [L995]")


def _no_open_activation(state: BattleState, unit: str) -> None:
    if state.active_unit not in (None, unit):
        raise refuse("activation_open", f"finish {state.active_unit} first (end_activation)")


def _move(out: _Out, cmd: Move, actor: str) -> None:
    s = out.state
    _turn(s, actor, Phase.MOVEMENT)
    me = _own(s, cmd.unit, actor)
    if not me.on_table:
        raise refuse("not_on_table", f"{cmd.unit} is not on the table")
    if me.activated:
        raise refuse("already_moved", f"{cmd.unit} has already moved this turn")
    _no_open_activation(s, cmd.unit)
    _loose_first(s, actor, cmd.unit)
    if me.out_of_control and not me.immobilised:
        raise refuse("must_ram", "out of control, it rams (0 ps if it cannot turn) [L997-L999]")
    if cmd.speed is not Speed.STATIONARY:
        if me.locked:
            raise refuse("locked", "a squad locked in combat cannot move [L1248]")
        if s.gone_to_ground(me) or me.immobilised or me.stunned:
            raise refuse("immobilised", f"{cmd.unit} cannot move this turn")
    if me.carried_out and cmd.speed is Speed.RAPID:
        raise refuse("no_rapid_move", "passengers got out before it moved: no rapid move [L279]")
    if me.reduced_mobility and cmd.speed is Speed.RAPID and s.setup and s.setup.seed_moves:
        raise refuse("no_rapid_move", "reduced mobility: no more rapid moves [L1444]")
    if me.retreating and cmd.speed is not Speed.RAPID:
        raise refuse("flees", "a retreating squad flees at a rapid move [L976]")
    limit = _move_limit(out.state, me, cmd.speed)
    profile = _profile(s, me)
    if not 0 <= cmd.difficult_inches <= cmd.inches:
        raise refuse("bad_terrain", "difficult_inches: 0 to the move", kind=RefusalKind.INPUT)
    if cmd.difficult_inches and not _crosses_freely(profile):
        # each started 3 ps segment in difficult terrain costs 1 ps, 2 when very difficult;
        # Agile à couvert counts very difficult as difficult [L723-L724], [L357]
        cost = 2 if cmd.very_difficult and not profile.has(Rule.MOVE_THROUGH_COVER) else 1
        if not (profile.has(Rule.MOVE_THROUGH_COVER) and cost == 1):
            limit -= cost * -(-cmd.difficult_inches // 3)
    _inches(cmd.inches, max(limit, 0), f"{cmd.speed} move")
    _choose(out, cmd.unit, actor)
    start = out.mark()
    models, taken, immobilised = me.models, me.wounds_taken, False
    vehicle: VehicleDamage | None = None
    crossed = cmd.difficult or cmd.difficult_inches > 0
    if crossed and cmd.speed is Speed.RAPID and _tests_difficult_at_speed(profile):
        cmd = replace(cmd, dangerous=True)  # bikes and ground vehicles [L159], [L198]
    if cmd.dangerous and cmd.speed is not Speed.STATIONARY:
        ones = 0
        for i in range(me.models):
            die = out.roller.roll(6, f"dangerous terrain {cmd.unit} #{i + 1}", stage="dangerous")
            out.roller.annotate(outcome="failed" if die == 1 else "passed")
            ones += die == 1
        if ones and me.is_vehicle:
            vehicle = _terrain_damage(out, me, ones, cmd.difficult)
            models = 0 if vehicle.destroyed else 1
            immobilised = vehicle.immobilised
        elif ones:
            models, taken = _terrain_wounds(out, me, ones, cmd.difficult)
    out.emit(
        UnitMoved(
            cmd.unit,
            cmd.speed,
            cmd.inches,
            out.roll_since(start),
            models,
            taken,
            immobilised,
            vehicle=vehicle,
        )
    )
    if vehicle is not None and vehicle.destroyed:
        _passengers_out(out, cmd.unit, False)


def may_go_on_alert(state: BattleState, unit: UnitState) -> bool:
    """A squad on the table that has done nothing yet this turn, and is not out of control,
    gone to ground, in combat or retreating [L969]; not in the alternation mode (pen rulings
    B35)."""
    return (
        not state.alternation
        and unit.on_table
        and not unit.activated
        and not unit.alert
        and not unit.out_of_control
        and not state.gone_to_ground(unit)
        and not unit.locked
        and not unit.retreating
    )


def _go_on_alert(out: _Out, cmd: GoOnAlert, actor: str) -> None:
    s = out.state
    _turn(s, actor, Phase.MOVEMENT)
    me = _own(s, cmd.unit, actor)
    _no_open_activation(s, cmd.unit)
    if not may_go_on_alert(s, me):
        raise refuse(
            "cannot_go_on_alert",
            "a squad on the table that has done nothing this turn goes on alert; not out of "
            "control, gone to ground, in combat or retreating [L959], [L969]",
        )
    out.emit(AlertDeclared(cmd.unit))


def _crosses_freely(profile: Unit | Vehicle) -> bool:
    """Antigrav models (skimmers, jump and jet-pack units, jetbikes) are not slowed by
    difficult terrain [L359]."""
    return profile.has(Rule.SKIMMER)


def _tests_difficult_at_speed(profile: object) -> bool:
    """Bikes, and vehicles that are neither skimmers, walkers nor aircraft, take a dangerous
    terrain test when they cross difficult terrain at a rapid move [L159], [L198]."""
    if isinstance(profile, Vehicle):
        return not any(
            profile.is_(kind)
            for kind in (VehicleType.SKIMMER, VehicleType.WALKER, VehicleType.AIRCRAFT)
        )
    return getattr(profile, "unit_type", None) is UnitType.BIKE


def _terrain_wounds(out: _Out, me: UnitState, ones: int, difficult: bool) -> tuple[int, int]:
    """Each failed dangerous terrain test is a wound at PA4, PA2 in difficult terrain
    [L728]: the armour save counts when it is better than the PA, or the invulnerable save
    (the better of the two [L1409]); a natural 1 fails [L1288]."""
    profile = _profile(out.state, me)
    ap = 2 if difficult else 4
    armour = profile.save if profile.save is not None and profile.save < ap else None
    options = [v for v in (armour, profile.invulnerable_save) if v is not None]
    target = min(options) if options else None
    models, taken = me.models, me.wounds_taken
    for _ in range(ones):
        if target is not None:
            die = out.roller.roll(6, f"save {target}+ (dangerous terrain)", stage="dangerous")
            saved = die != 1 and die >= target
            out.roller.annotate(outcome="saved" if saved else "failed")
            if saved:
                continue
        models, taken = _wound(models, taken, 1, me.wounds)
    return models, taken


def _terrain_damage(out: _Out, me: UnitState, ones: int, difficult: bool) -> VehicleDamage:
    """Each failed dangerous terrain test is a glancing damage on a vehicle, penetrating in
    difficult terrain, its location rolled on 1D6 + 1 [L729]."""
    kind = Penetration.PENETRATING if difficult else Penetration.GLANCING
    request = _request(
        {"models": 1, "bs": 1, "ws": 1, "strength": 1, "toughness": 4},
        {"kind": "ranged", "type": "assault", "shots": 1, "strength": 1},
        _vehicle_target(out.state, me, "front"),
        {},
    )
    result = resolve(request, out.roller, damage=(kind,) * ones)
    damage = _vehicle_damage(me, result.extra.get("vehicle"), result.totals)
    assert damage is not None
    return damage[0]


_DODGE_3 = frozenset(
    {
        UnitType.CAVALRY,
        UnitType.BEAST,
        UnitType.JET_PACK,
        UnitType.JUMP,
        UnitType.BIKE,
        UnitType.JETBIKE,
        UnitType.FLYING_MONSTROUS_CREATURE,
    }
)


def _dodge_target(profile: object) -> int | None:
    """The D6 a squad needs to dodge a ram [L1015-L1019] (None: it cannot): infantry 5+;
    skimmers, beasts, cavalry, flying units, jet-packs, bikes and jetbikes 3+; monstrous
    creatures, firing platforms and other vehicles never (the D6 is the test: rules note §8
    item 27)."""
    if isinstance(profile, Vehicle):
        return 3 if profile.is_(VehicleType.SKIMMER) else None
    unit_type = getattr(profile, "unit_type", UnitType.INFANTRY)
    if unit_type is UnitType.INFANTRY:
        return 5
    return 3 if unit_type in _DODGE_3 else None


def _heavy(profile: object) -> bool:
    """Vehicles and monstrous creatures: they stop a ram and hit back [L1026]."""
    return isinstance(profile, Vehicle) or bool(getattr(profile, "is_monstrous", False))


def _ram_strength(profile: object, facing: str) -> int:
    """S of the squad, or the armour of the facing in contact - 5 for a vehicle; +1 for a
    tank or a monstrous creature [L1022] (rules note §8 item 28)."""
    if isinstance(profile, Vehicle):
        strength = profile.armour.value(Facing(facing)) - 5
        return strength + (1 if profile.is_(VehicleType.TANK) else 0)
    strength = getattr(profile, "strength", None) or 1
    return strength + (1 if getattr(profile, "is_monstrous", False) else 0)


def _ram_hits(out: _Out, target: UnitState, strength: int, hits: int, facing: str) -> SquadOutcome:
    """``hits`` automatic hits at ``strength``, no cover save [L1022], on ``target``."""
    s = out.state
    weapon = {
        "kind": "ranged",
        "type": "assault",
        "shots": 1,
        "strength": max(1, min(strength, 10)),
        "properties": ["Anti-couvert"],
    }
    probe = {"models": 1, "bs": 4, "ws": 4, "strength": 4, "toughness": 4}
    if target.is_vehicle:
        request = _request(probe, weapon, _vehicle_target(s, target, facing), {})
        result = resolve(request, out.roller, hits=hits)
        damage = _vehicle_damage(target, result.extra.get("vehicle"), result.totals)
        assert damage is not None
        vd = damage[0]
        return SquadOutcome(target.id, 0 if vd.destroyed else 1, 0, vd)
    request = _request(
        probe, weapon, dict(_spec_profile(s, target)) | {"models": target.models}, {}
    )
    remaining = [target.wounds] * target.models
    strike(request, out.roller, remaining, hits=hits)
    models, taken = _after_strike(target, remaining)
    return SquadOutcome(target.id, models, taken)


def _ram(out: _Out, cmd: Ram, actor: str) -> None:
    s = out.state
    _turn(s, actor, Phase.MOVEMENT)
    me = _own(s, cmd.unit, actor)
    if not me.on_table or me.activated:
        raise refuse("already_moved", f"{cmd.unit} has already moved this turn")
    _no_open_activation(s, cmd.unit)
    stunned = me.stunned and not me.out_of_control  # the crash drives it [L997]
    if me.locked or me.retreating or s.gone_to_ground(me) or me.immobilised or stunned:
        raise refuse("immobilised", f"{cmd.unit} cannot move this turn")
    _loose_first(s, actor, cmd.unit)
    mine = _profile(s, me)
    bike = getattr(mine, "unit_type", None) in (UnitType.BIKE, UnitType.JETBIKE)
    if not (_heavy(mine) or bike):
        raise refuse("cannot_ram", "only vehicles, monstrous creatures, bikes and jetbikes ram")
    fast = me.reduced_mobility or me.carried_out
    start = out.mark()
    if me.out_of_control:  # the scatter die: a hit face, its normal move; an arrow, its
        # rapid move, the player shortening it only where the table stops it [L997-L1000]
        face = out.roller.roll(6, f"out of control {cmd.unit}: scatter die", stage="ram")
        fast = face <= 2
        out.roller.annotate(outcome="hit face: normal move" if fast else "arrow: rapid move")
    _inches(cmd.inches, _move_limit(out.state, me, Speed.NORMAL if fast else Speed.RAPID), "ram")
    speed = Speed.RAPID if cmd.inches > _move_limit(out.state, me, Speed.NORMAL) else Speed.NORMAL
    _choose(out, cmd.unit, actor)
    seen: set[str] = set()
    for t in cmd.targets:
        them = _unit(s, t.unit)
        if t.unit == cmd.unit or t.unit in seen or not them.on_table:
            raise refuse("bad_target", f"{t.unit} is not another squad on the table")
        if t.facing not in ("front", "side", "rear"):
            raise refuse("bad_facing", "facing: front, side or rear", kind=RefusalKind.INPUT)
        seen.add(t.unit)
    antigrav = (isinstance(mine, Vehicle) and mine.is_(VehicleType.SKIMMER)) or (
        getattr(mine, "unit_type", None) is UnitType.JETBIKE
    )
    strength = _ram_strength(mine, "front")
    outcomes: list[SquadOutcome] = []
    dodged: list[str] = []
    for t in cmd.targets:
        them = s.units[t.unit]
        theirs = _profile(s, them)
        need = None if them.locked else _dodge_target(theirs)
        if need is not None:
            die = out.roller.roll(6, f"dodge {them.id} ({need}+)", stage="ram")
            escaped = die + (1 if antigrav else 0) >= need
            out.roller.annotate(
                modifier=1 if antigrav else 0, outcome="dodged" if escaped else "hit"
            )
            if escaped:
                dodged.append(them.id)
                continue
        if _heavy(mine):
            y = out.roller.roll(6, f"ram hits on {them.id}") + out.roller.roll(6, "ram hits")
        else:
            y = out.roller.roll(3, f"ram hits on {them.id}")
        outcomes.append(_ram_hits(out, them, strength, min(y, them.models), t.facing))
        if _heavy(theirs):  # it hits back once, the rammer stops at 1 ps [L1026]
            if not me.out_of_control:  # an out-of-control rammer takes no hit [L1029]
                back = _ram_strength(theirs, t.facing)
                outcomes.append(_ram_hits(out, me, back, 1, "front"))
            break
        if them.locked:
            break  # a squad in melee stops the rammer, and is hit [L1027]
    out.emit(
        Rammed(cmd.unit, speed, cmd.inches, out.roll_since(start), tuple(outcomes), tuple(dodged))
    )
    for o in outcomes:
        if o.vehicle is not None and o.vehicle.destroyed:
            _passengers_out(out, o.unit, False)


def _wound(models: int, taken: int, wounds: int, per_model: int) -> tuple[int, int]:
    """Wounds added to a squad: the model being worn down dies at its W (pen rulings)."""
    total = taken + wounds
    dead, taken = divmod(total, max(per_model, 1))
    models = max(models - dead, 0)
    return models, taken if models else 0


def _go_to_ground(out: _Out, cmd: GoToGround, actor: str) -> None:
    s = out.state
    _stage(s, Stage.BATTLE)
    me = _own(s, cmd.unit, actor)
    # the enemy shoots in its own movement phase, or on alert in ours [L959]
    alert = any(u.alert and u.on_table for u in s.seat_units(other(actor)))
    if (s.active_seat == actor and not alert) or s.phase is not Phase.MOVEMENT:
        raise refuse("not_now", "a squad goes to ground when the enemy shoots at it [L1136]")
    if me.is_vehicle or me.locked or me.retreating or not me.on_table or s.gone_to_ground(me):
        raise refuse("cannot_go_to_ground", "vehicles, locked or retreating squads cannot [L1140]")
    out.emit(WentToGround(cmd.unit))


def _shoot(out: _Out, cmd: Shoot, actor: str) -> None:
    s = out.state
    mine = s.units.get(cmd.unit)
    alert = (
        mine is not None
        and mine.seat == actor
        and mine.alert
        and s.active_seat not in (None, actor)
    )
    if alert:  # its shooting phase in the enemy's movement phase [L959]
        if s.phase is not Phase.MOVEMENT:
            raise refuse("wrong_phase", "alert fire comes in the enemy's movement phase [L959]")
    else:
        _turn(s, actor, Phase.MOVEMENT)
    me = _own(s, cmd.unit, actor)
    if not alert:
        _no_open_activation(s, cmd.unit)
        if me.alert:
            raise refuse("on_alert", f"{cmd.unit} is on alert: it does nothing this turn [L959]")
    if me.stopped:
        raise refuse("stopped", f"alert fire stopped {cmd.unit}: no shooting this turn [L966]")
    them = _unit(s, cmd.target)
    if them.seat == actor or not them.on_table:
        raise refuse("bad_target", f"{cmd.target} is not an enemy squad on the table")
    carrier = _fired_from(s, me)  # shooting from its transport's fire points [L295]
    if not (me.on_table or carrier is not None) or me.locked or me.retreating:
        raise refuse("cannot_shoot", f"{cmd.unit} cannot shoot (locked, fleeing or absent)")
    if me.rammed:
        raise refuse("rammed", f"{cmd.unit} rammed this turn: it cannot shoot [L1012]")
    if not alert:
        _loose_first(s, actor, cmd.unit)
    if me.regrouped and me.speed not in (None, Speed.STATIONARY):
        raise refuse("regrouped", "a squad that regrouped moves or shoots, not both [L975]")
    if me.shot_at and cmd.target not in me.shot_at:
        raise refuse("one_target", "a squad shoots at its announced target [L980]")
    if me.shot and not me.shot_at:
        raise refuse("no_shooting", "it failed its test to shoot into the melee [L1130]")
    spec = s.unit_spec(cmd.unit)
    weapon = spec.weapon(cmd.weapon)
    if weapon is None:
        raise refuse("unknown_weapon", f"{cmd.unit} has no weapon {cmd.weapon!r}")
    if not isinstance(weapon.profile, Mapping) or not isinstance(spec.profile, Mapping):
        raise refuse("bad_profile", "weapon and squad profiles must be objects")
    _inches(cmd.range_inches, 240, "range")
    firing = me.models if cmd.models is None else cmd.models
    if not 1 <= firing <= me.models:
        raise refuse("bad_models", f"1 to {me.models} models fire", kind=RefusalKind.INPUT)
    speed, snaps = me.speed, _snaps(s, me)
    if carrier is not None:
        left = fire_points_left(s, carrier)
        if firing > left:
            raise refuse(
                "fire_points",
                f"{carrier.id} lets {left} more carried models shoot this turn [L295]",
            )
        speed = passenger_speed(s, carrier)  # [L282], [L309]
        snaps = speed is Speed.RAPID or s.gone_to_ground(me) or me.shaken
    moved = speed not in (None, Speed.STATIONARY)
    seen = first_turn_target(s, them)  # its move as the BS modifiers read it [L1337]
    situation: dict[str, Any] = {
        "half_range": cmd.half_range,
        "stationary": not moved,
        "snap_fire": snaps,
        "night": s.night,
        "range_inches": cmd.range_inches,
        "target_moved": seen.moved if seen.speed is not Speed.STATIONARY else 0,
        "target_gone_to_ground": s.gone_to_ground(them),
    }
    if cmd.template_hits is not None:
        situation["models_under_template"] = cmd.template_hits
    friends = sorted(f for f in them.locked if s.units[f].seat == actor and s.units[f].alive)
    if cmd.friend and cmd.friend not in friends:
        raise refuse("bad_friend", f"{cmd.friend} is not in that combat", kind=RefusalKind.INPUT)
    if them.locked:  # no range or speed modifier against a squad in combat [L1329]
        situation["target_in_melee"] = True
    if friends and them.models < 2 * sum(s.units[f].models for f in friends):
        situation["into_melee_malus"] = True  # -1 BS unless twice the friends [L1132]
    target = dict(_spec_profile(s, them))
    if them.is_vehicle:
        target = _vehicle_target(s, them, cmd.facing)
        situation["target_rapid_move"] = seen.speed is Speed.RAPID
    else:
        target["models"] = them.models
        if cmd.cover_save is not None:
            target["cover_save"] = cmd.cover_save
            # hidden: did not shoot, in cover, no rapid move over 12 ps [L1099-L1108]
            situation["target_hidden"] = not them.shot and not (
                seen.speed is Speed.RAPID and seen.moved > 12
            )
    attacker = _shooter(spec.profile, firing) if me.is_vehicle else spec.profile
    attacker = dict(attacker) | {"models": firing}
    try:
        request = request_from_dict(
            {
                "attacker": attacker,
                "weapon": weapon.profile,
                "target": target,
                "situation": situation,
            }
        )
    except ProfileError as err:
        raise Refusal(
            "bad_attack",
            str(err),
            kind=RefusalKind.INPUT,
            details={"errors": [{"field": p, "message": m} for p, m in err.errors]},
        ) from None
    if request.melee:
        raise refuse("melee_weapon", "close-combat weapons fight in the assault phase")
    if carrier is None and not alert:
        _choose(out, cmd.unit, actor)
    through = firing if carrier is not None else 0
    if them.locked and not me.shot_at and not _test(out, me, "shoot_into_melee", 0):
        return  # a failed morale test: the squad does not shoot into the melee [L1130]
    start = out.mark()
    result = resolve(request, out.roller)
    friendly = None
    if friends:  # each 1 to hit hits the friendly squad in the combat [L1132]
        ones = sum(
            1 for d in out.roller.records[start:] if d.label.startswith("to hit") and d.value == 1
        )
        if ones:
            friend = s.units[cmd.friend or friends[0]]
            friendly = _friendly_fire(out, attacker, weapon.profile, friend, ones)
    roll = out.roll_since(start)
    pinning = request.weapon.has(Rule.PINNING)
    damage = _vehicle_damage(them, result.extra.get("vehicle"), result.totals)
    if them.is_vehicle and damage is not None:
        vd, exploded = damage
        halted = alert and vd.out_of_control and not vd.destroyed
        if halted:  # alert fire puts no unit out of control: it stops it [L966]
            vd = replace(vd, out_of_control=False)
        out.emit(
            UnitShot(
                cmd.unit,
                cmd.target,
                cmd.weapon,
                roll,
                0 if vd.destroyed else 1,
                0,
                False,
                vd,
                friendly=friendly,
                fire_points=through,
                alert=alert,
            )
        )
        if halted:
            out.emit(Stopped(cmd.target))
        if vd.destroyed:
            _passengers_out(out, cmd.target, exploded)
        return
    dead = result.target_after.models_destroyed
    lost = result.target_after.wounds_lost
    models, taken = _wound(
        them.models - dead, them.wounds_taken, lost - dead * them.wounds, them.wounds
    )
    poisoned = request.weapon.has(Rule.POISONED) and lost > 0 and taken > 0
    out.emit(
        UnitShot(
            cmd.unit,
            cmd.target,
            cmd.weapon,
            roll,
            models,
            taken,
            pinning and lost > 0,
            poisoned=poisoned,
            friendly=friendly,
            fire_points=through,
            alert=alert,
        )
    )


def _fired_from(s: BattleState, me: UnitState) -> UnitState | None:
    """The transport an embarked squad shoots from, through its fire points [L295]: once the
    transport has been played this turn (moved, or stayed where it is), as the passengers
    count as having moved with it [L282] (pen rulings B32); None when not embarked."""
    if not me.embarked or me.transport is None:
        return None
    carrier = s.units[me.transport]
    if not carrier.on_table:
        raise refuse("not_on_table", f"{carrier.id} is not on the table")
    if me.transferred:
        raise refuse("embarked_this_turn", f"{me.id} got in this turn: it does not shoot from it")
    if not carrier.activated or s.active_unit == carrier.id:
        raise refuse(
            "transport_first",
            f"{carrier.id} moves first; its passengers shoot from it after its move [L282]",
        )
    if s.alternation and s.playing != carrier.id:
        raise refuse("not_now", "passengers shoot while their transport is played")
    return carrier


def _open_topped(s: BattleState, carrier: UnitState) -> bool:
    profile = _profile(s, carrier)
    return isinstance(profile, Vehicle) and profile.is_(VehicleType.OPEN_TOPPED)


def fire_points_left(s: BattleState, carrier: UnitState) -> int:
    """How many more carried models may shoot from ``carrier`` this turn: its fire points
    [L295] less the models that already fired from it; every passenger of an open-topped
    transport [L315]."""
    aboard = [u for u in s.units.values() if u.transport == carrier.id and u.embarked]
    if _open_topped(s, carrier):
        return sum(u.models for u in aboard)
    points = s.unit_spec(carrier.id).fire_points
    return max(points - sum(u.fired_models for u in aboard), 0)


def fast_over_12(s: BattleState, carrier: UnitState) -> bool:
    """A fast transport that moved more than 12 ps this turn [L305-L309]."""
    profile = _profile(s, carrier)
    fast = isinstance(profile, Vehicle) and profile.is_(VehicleType.FAST)
    return fast and carrier.speed not in (None, Speed.STATIONARY) and carrier.moved > 12


def passenger_speed(s: BattleState, carrier: UnitState) -> Speed:
    """The move the passengers of ``carrier`` count as having made this turn: none when it
    stayed still, a normal move when it moved [L282], a rapid one when a fast transport moved
    more than 12 ps [L309]."""
    if carrier.speed in (None, Speed.STATIONARY):
        return Speed.STATIONARY
    return Speed.RAPID if fast_over_12(s, carrier) else Speed.NORMAL


def _snaps(s: BattleState, me: UnitState) -> bool:
    """Only snap fire: after a rapid move (a vehicle too, but a flyer fires everything
    [L202-L207]), gone to ground, or shaken."""
    rapid = me.speed is Speed.RAPID
    if rapid and me.is_vehicle:
        profile = _profile(s, me)
        rapid = not (isinstance(profile, Vehicle) and profile.is_(VehicleType.FLYER))
    return rapid or s.gone_to_ground(me) or me.shaken


def _shooter(profile: Mapping[str, Any], firing: int) -> dict[str, Any]:
    """The attacker of a vehicle's shot: its own BS [L103] (which also drives the hit location
    on an enemy vehicle [L1420]) and its rules. A vehicle's weapon type does not matter after a
    normal move [L202-L207]: it fires as with Implacable (pen rulings B27)."""
    rules = [r for r in profile.get("rules", ()) if isinstance(r, str)]
    if "Implacable" not in rules:
        rules.append("Implacable")
    shooter: dict[str, Any] = {"models": firing, "rules": rules}
    if profile.get("bs") is not None:
        shooter["bs"] = profile["bs"]
    return shooter


def _friendly_fire(
    out: _Out, attacker: Mapping[str, Any], weapon: object, friend: UnitState, hits: int
) -> SquadOutcome:
    """The shots that hit the friendly squad in a combat [L1132]: the same weapon, hits
    already scored."""
    s = out.state
    if friend.is_vehicle:
        request = _request(attacker, weapon, _vehicle_target(s, friend, "front"), {})
        result = resolve(request, out.roller, hits=hits)
        damage = _vehicle_damage(friend, result.extra.get("vehicle"), result.totals)
        assert damage is not None
        return SquadOutcome(friend.id, 0 if damage[0].destroyed else 1, 0, damage[0])
    target = dict(_spec_profile(s, friend)) | {"models": friend.models}
    request = _request(attacker, weapon, target, {})
    remaining = [friend.wounds] * friend.models
    strike(request, out.roller, remaining, hits=hits)
    models, taken = _after_strike(friend, remaining)
    return SquadOutcome(friend.id, models, taken)


def _vehicle_damage(
    them: UnitState, extra: object, totals: Mapping[str, int]
) -> tuple[VehicleDamage, bool] | None:
    """What an attack's ``vehicle`` section leaves on the vehicle ``them`` (and whether it
    exploded); None when the attack was not against a vehicle."""
    if not isinstance(extra, Mapping):
        return None
    results_raw = extra.get("results")
    counts = (
        {str(k): _int(v) for k, v in results_raw.items()}
        if isinstance(results_raw, Mapping)
        else {}
    )
    names = tuple(str(k) for k, n in counts.items() if k in _REPEATING for _ in range(n))
    bonus = counts.get("damaged", 0) + 2 * counts.get("heavily_damaged", 0)
    vd = VehicleDamage(
        hp_lost=them.hp_lost + int(totals.get("hull_points_lost", 0)),
        damage_bonus=them.damage_bonus + bonus,
        weapons_damaged=bool(extra.get("weapons_damaged")) or them.weapons_damaged,
        reduced_mobility=bool(extra.get("reduced_mobility")) or them.reduced_mobility,
        immobilised=bool(extra.get("immobilised")) or them.immobilised,
        shaken=bool(extra.get("shaken")),
        stunned=bool(extra.get("driver_stunned")),
        destroyed=bool(extra.get("destroyed")),
        results=names,
        out_of_control=bool(extra.get("out_of_control")),
    )
    return vd, bool(extra.get("exploded"))


def _vehicle_target(state: BattleState, them: UnitState, facing: str) -> dict[str, Any]:
    target = dict(_spec_profile(state, them))
    target.update(
        facing=facing,
        hull_points_lost=them.hp_lost,
        damage_bonus=them.damage_bonus,
        weapons_damaged=them.weapons_damaged,
        reduced_mobility=them.reduced_mobility,
        immobilised=them.immobilised,
        results_this_turn=list(them.results_this_turn),
    )
    return target


def _passengers_out(out: _Out, transport: str, exploded: bool) -> None:
    """The passengers of a destroyed transport take one anti-cover hit each (S5; S6 and a
    pinning test when it exploded; an open transport: none, S4 when it exploded [L327]),
    then get out [L273], [L1453-L1454]. A transport lost to its hull points counts as
    "Détruit" (pen rulings)."""
    s = out.state
    carrier = _profile(s, s.units[transport])
    open_top = isinstance(carrier, Vehicle) and carrier.is_(VehicleType.OPEN_TOPPED)
    strength = (4 if exploded else 0) if open_top else (6 if exploded else 5)
    for unit in sorted(u.id for u in s.units.values() if u.transport == transport and u.alive):
        me = out.state.units[unit]
        start = out.mark()
        models, taken = me.models, me.wounds_taken
        if strength:
            request = _request(
                {"models": 1, "bs": 4, "ws": 4, "strength": strength, "toughness": 4},
                {
                    "kind": "ranged",
                    "type": "assault",
                    "shots": 1,
                    "strength": strength,
                    "properties": ["Anti-couvert"],
                },
                dict(_spec_profile(s, me)) | {"models": me.models},
                {},
            )
            remaining = [me.wounds] * me.models
            strike(request, out.roller, remaining, hits=me.models)
            models, taken = _after_strike(me, remaining)
        out.emit(PassengersHit(unit, transport, out.roll_since(start), models, taken))
        me = out.state.units[unit]
        if exploded and me.alive and not out.state.gone_to_ground(me):
            _test(out, me, "pinning", 0)


def _after_strike(me: UnitState, remaining: list[int]) -> tuple[int, int]:
    """(models, wounds on the worn model) of a squad after a strike on fresh ``remaining``."""
    dead = sum(1 for w in remaining if w <= 0)
    lost = me.models * me.wounds - sum(max(w, 0) for w in remaining)
    return _wound(me.models - dead, me.wounds_taken, lost - dead * me.wounds, me.wounds)


def _request(
    attacker: Mapping[str, Any],
    weapon: object,
    target: Mapping[str, Any],
    situation: Mapping[str, Any],
) -> AttackRequest:
    try:
        return request_from_dict(
            {
                "attacker": dict(attacker),
                "weapon": weapon,
                "target": dict(target),
                "situation": dict(situation),
            }
        )
    except ProfileError as err:
        raise Refusal(
            "bad_attack",
            str(err),
            kind=RefusalKind.INPUT,
            details={"errors": [{"field": p, "message": m} for p, m in err.errors]},
        ) from None


def _spec_profile(state: BattleState, unit: UnitState) -> Mapping[str, Any]:
    raw = state.unit_spec(unit.id).profile
    assert isinstance(raw, Mapping)
    return raw


def _end_activation(out: _Out, cmd: EndActivation, actor: str) -> None:
    s = out.state
    me = s.units.get(cmd.unit)
    if (
        me is not None
        and me.seat == actor
        and me.alert
        and me.shot
        and s.active_seat not in (None, actor)
    ):
        if s.phase is not Phase.MOVEMENT:
            raise refuse("wrong_phase", "alert fire comes in the enemy's movement phase [L959]")
        _end_alert(out, cmd.unit)
        return
    _turn(s, actor, Phase.MOVEMENT)
    _own(s, cmd.unit, actor)
    if s.active_unit != cmd.unit:
        raise refuse("not_active", f"{cmd.unit} is not moving or shooting now")
    _fire_tests(out, cmd.unit)
    out.emit(ActivationEnded(cmd.unit))


def _end_alert(out: _Out, unit: str) -> None:
    """The end of an alert squad's shooting phase: its targets take their tests; a failed
    morale test stops the squad (no shooting, no charge this turn) instead of a retreat
    [L966]."""
    _fire_tests(out, unit, alert=True)
    out.emit(AlertEnded(unit))


def _fire_tests(out: _Out, shooter: str, alert: bool = False) -> None:
    """The tests the targets of ``shooter`` take at the end of its shooting: morale at 25%
    losses, pinning, accident [L1162-L1166], [L685], [L1154]."""
    s = out.state
    for unit in sorted(u.id for u in s.units.values() if u.fire_from == shooter):
        victim = out.state.units[unit]
        if not victim.alive:
            continue
        lost = victim.models_before_fire - victim.models
        if not victim.is_vehicle and not victim.locked and 4 * lost >= victim.models_before_fire:
            # >= 25% lost to one enemy squad's shooting; -1 at >= 50% [L1162-L1166]
            malus = 1 if 2 * lost >= victim.models_before_fire else 0
            if not victim.retreating and not alert:
                _test(out, victim, "morale", malus)
            elif not victim.retreating and not _test(out, victim, "alert_morale", malus):
                out.emit(Stopped(unit))  # instead of a retreat [L966]
        victim = out.state.units[unit]
        if (
            victim.pinning_pending
            and not victim.is_vehicle
            and not out.state.gone_to_ground(victim)
            and not victim.locked
            and not victim.retreating
        ):
            _test(out, victim, "pinning", 0)  # [L685]
        _accident(out, out.state.units[unit])


_ACCIDENT_TYPES = frozenset(
    {
        UnitType.MONSTROUS_CREATURE,
        UnitType.FLYING_MONSTROUS_CREATURE,
        UnitType.JUMP,
        UnitType.JET_PACK,
        UnitType.BIKE,
        UnitType.JETBIKE,
    }
)


def _accident(out: _Out, victim: UnitState) -> None:
    """Accident [L1154-L1160]: the wounded model of such a squad (the one the battle tracks,
    B6) takes a dangerous terrain test; the lower of 2D6 when it lost a single W. A monstrous
    creature at a rapid move that lost 1 W goes out of control instead: left to the table
    (pen rulings B8)."""
    if not victim.alive or victim.is_vehicle or not victim.wounds_taken:
        return
    profile = _profile(out.state, victim)
    if getattr(profile, "unit_type", None) not in _ACCIDENT_TYPES:
        return
    same = victim.models == victim.models_before_fire
    lost = victim.wounds_taken - (victim.taken_before_fire if same else 0)
    if lost <= 0:
        return
    if profile.is_monstrous and victim.speed is Speed.RAPID and lost == 1:
        return
    start = out.mark()
    die = out.roller.roll(6, f"accident {victim.id}", stage="accident")
    if lost == 1:
        die = min(die, out.roller.roll(6, f"accident {victim.id} (the lower of 2D6)"))
    out.roller.annotate(outcome="failed" if die == 1 else "passed")
    models, taken = victim.models, victim.wounds_taken
    if die == 1:
        models, taken = _terrain_wounds(out, victim, 1, False)
    out.emit(AccidentTested(victim.id, out.roll_since(start), die != 1, models, taken))


def _passengers(state: BattleState, transport: str) -> int:
    return sum(u.models for u in state.units.values() if u.transport == transport and u.alive)


def _embark(out: _Out, cmd: Embark, actor: str) -> None:
    s = out.state
    me = _own(s, cmd.unit, actor)
    carrier = _own(s, cmd.transport, actor)
    spec = s.unit_spec(cmd.transport)
    reserving = s.stage is Stage.RESERVES
    if me.is_vehicle or not spec.capacity or not (carrier.on_table or reserving):
        raise refuse("no_transport", f"{cmd.unit} cannot board {cmd.transport}")
    if _passengers(s, cmd.transport) + me.models > spec.capacity:
        raise refuse(
            "transport_full", f"{cmd.transport} carries {spec.capacity} models [L290-L293]"
        )
    if reserving:  # kept in reserve inside a transport kept in reserve (pen rulings B31)
        if actor in s.ready:
            raise refuse("step_done", "you have ended this step")
        if carrier.place is not Place.RESERVE:
            raise refuse("not_in_reserve", f"keep {cmd.transport} in reserve first")
        if me.place not in (Place.UNDEPLOYED, Place.RESERVE):
            raise refuse("not_now", f"{cmd.unit} is already in a transport")
        out.emit(Embarked(cmd.unit, cmd.transport))
        return
    if s.stage is Stage.DEPLOY:  # deployed inside its transport
        if actor != _deployer(s) or me.place is not Place.UNDEPLOYED:
            raise refuse("not_now", "deploy it into its transport in your deployment")
        out.emit(Embarked(cmd.unit, cmd.transport))
        return
    _turn(s, actor, Phase.MOVEMENT)
    if not me.on_table or me.locked or me.retreating:
        raise refuse("cannot_embark", f"{cmd.unit} cannot embark now")
    if me.transferred:
        raise refuse("once_per_turn", "embark or disembark, once a turn [L277]")
    if me.shot or (me.activated and s.active_unit != cmd.unit):
        raise refuse("cannot_embark", "a squad embarks at the start or the end of its move [L278]")
    _no_open_activation(s, cmd.unit)
    _choose(out, cmd.unit, actor)
    out.emit(Embarked(cmd.unit, cmd.transport))


def _disembark(out: _Out, cmd: Disembark, actor: str) -> None:
    s = out.state
    _turn(s, actor, Phase.MOVEMENT)
    me = _own(s, cmd.unit, actor)
    if not me.embarked or me.transport is None:
        raise refuse("not_embarked", f"{cmd.unit} is not in a transport")
    if me.transferred:
        raise refuse("once_per_turn", "embark or disembark, once a turn [L277]")
    if me.shot:
        raise refuse("shot_from_transport", f"{cmd.unit} shot from its transport this turn")
    carrier = s.units[me.transport]
    if not carrier.on_table:  # still in reserve: it comes on first [L867]
        raise refuse("not_on_table", f"{carrier.id} is not on the table")
    if s.active_unit not in (None, carrier.id):
        raise refuse("activation_open", f"finish {s.active_unit} first (end_activation)")
    if s.alternation and s.playing != carrier.id:
        raise refuse("not_now", "passengers get out while their transport is played")
    moved = carrier.activated and carrier.speed not in (None, Speed.STATIONARY)
    if s.alternation:  # played with their transport, as having moved (pen rulings)
        moved = True
    if carrier.activated and not moved and s.active_unit != carrier.id:
        moved = True  # the transport is done for the turn: the end of its movement
    rapid = moved and fast_over_12(s, carrier)
    if rapid and not cmd.emergency:  # a fast transport over 12 ps [L309]
        raise refuse(
            "emergency_only", f"{carrier.id} moved over 12 ps: only an emergency disembark [L309]"
        )
    out.emit(Disembarked(cmd.unit, carrier.id, moved, cmd.emergency, rapid))


def _charge(out: _Out, cmd: Charge, actor: str) -> None:
    s = out.state
    _turn(s, actor, Phase.ASSAULT)
    me = _own(s, cmd.unit, actor)
    them = _unit(s, cmd.target)
    if them.seat == actor or not them.on_table or not me.on_table:
        raise refuse("bad_target", f"{cmd.target} is not an enemy squad on the table")
    problems = []
    if me.charged or me.locked:
        problems.append("it is already in combat")
    if me.speed is Speed.RAPID:
        problems.append("it made a rapid move [L1049]")
    if me.rammed:
        problems.append("it rammed this turn [L1012]")
    if me.arrived_deep_strike:
        problems.append("it arrived by deep strike [L900]")
    if me.alert:
        problems.append("it is on alert: it does nothing this turn [L959]")
    if me.stopped:
        problems.append("alert fire stopped it this turn [L966]")
    if me.retreating or s.gone_to_ground(me):
        problems.append("it is retreating or gone to ground [L1138]")
    if me.shot_at and cmd.target not in me.shot_at:
        problems.append("a squad that shot charges an enemy it shot at [L1175]")
    if me.is_vehicle:
        problems.append("this engine does not track vehicles charging (ramming is not tracked)")
    if problems:
        raise refuse("cannot_charge", f"{cmd.unit} cannot charge: " + "; ".join(problems))
    reach = 9 if str(Rule.FLEET) in me.rules else 6
    if not 0 <= cmd.distance <= reach:
        raise refuse("too_far", f"{cmd.distance} ps: a charge reaches {reach} ps [L1177]")
    _choose(out, cmd.unit, actor)
    out.emit(ChargeDeclared(cmd.unit, cmd.target, cmd.distance))


def _is_character(unit: UnitState) -> bool:
    return str(Rule.INDEPENDENT_CHARACTER) in unit.rules


def _challenge(out: _Out, cmd: Challenge, actor: str) -> None:
    """Duel [L1223-L1228]: a character that charged challenges an enemy character of the same
    combat before it is fought. Only independent characters duel here: they are squads of
    their own in a match (B30); a sergeant or a champion inside a squad is the table's (B36)."""
    s = out.state
    _turn(s, actor, Phase.ASSAULT)
    me = _own(s, cmd.unit, actor)
    them = _unit(s, cmd.target)
    problems = []
    if not me.charged or not _is_character(me):
        problems.append(f"{cmd.unit} is not a character that charged this turn")
    if them.seat == actor or not _is_character(them) or cmd.target not in _combat(s, cmd.unit):
        problems.append(f"{cmd.target} is not an enemy character in the same combat")
    if me.fought or them.fought:
        problems.append("the combat has been fought")
    if any(x.duel or x.challenged_by or x.refused_duel for x in (me, them)):
        problems.append("one of them has already been challenged this turn")
    if any(u.challenged_by == cmd.unit for u in s.units.values()):
        problems.append(f"{cmd.unit} has already challenged")
    if problems:
        raise refuse("cannot_challenge", "; ".join(problems) + " [L1225]")
    out.emit(ChallengeIssued(cmd.unit, cmd.target))


def challengeable(state: BattleState, unit: UnitState) -> list[str]:
    """The enemy characters ``unit`` may challenge now [L1225]."""
    if (
        state.phase is not Phase.ASSAULT
        or not unit.charged
        or not _is_character(unit)
        or unit.fought
        or unit.duel
        or unit.challenged_by
        or unit.refused_duel
        or any(u.challenged_by == unit.id for u in state.units.values())
    ):
        return []
    return [
        e
        for e in _combat(state, unit.id)
        if state.units[e].seat != unit.seat
        and _is_character(state.units[e])
        and not state.units[e].fought
        and not (state.units[e].duel or state.units[e].challenged_by)
        and not state.units[e].refused_duel
    ]


def _answer_challenge(out: _Out, cmd: AnswerChallenge, actor: str) -> None:
    s = out.state
    _stage(s, Stage.BATTLE)
    me = _own(s, cmd.unit, actor)
    if s.phase is not Phase.ASSAULT or me.challenged_by is None:
        raise refuse("no_challenge", f"{cmd.unit} has not been challenged")
    out.emit(ChallengeAnswered(cmd.unit, me.challenged_by, cmd.accept))


def _fight(out: _Out, cmd: Fight, actor: str, defender_charged: bool = False) -> None:
    """``defender_charged``: the target fights this round with the charge bonus too (a mutual
    assault in one pass of the Dynamics variant, Dyn [L96]); PEN never sets it."""
    s = out.state
    _turn(s, actor, Phase.ASSAULT)
    me = _unit(s, cmd.unit)
    them = _unit(s, cmd.target)
    if cmd.target not in me.locked:
        raise refuse("not_locked", f"{cmd.unit} is not in combat with {cmd.target}")
    group = _combat(s, cmd.unit)
    if any(s.units[u].fought for u in group):
        raise refuse("already_fought", "this combat has been fought this phase")
    pending = [u for u in group if s.units[u].challenged_by]
    if pending:
        raise refuse("answer_challenge", f"{pending[0]} answers the challenge first [L1226]")
    duelling = any(
        s.units[u].duel or s.units[u].refused_duel or s.units[u].hit_and_run is not None
        for u in group
    )
    if s.alternation:
        _own(s, cmd.unit, actor)
        _choose(out, cmd.unit, actor)
    if len(group) > 2 or me.is_vehicle or them.is_vehicle or cmd.assign or cmd.weapons or duelling:
        _fight_many(out, cmd, group, defender_charged)
        return
    spec = s.unit_spec(cmd.unit)
    melee = spec.melee if spec.melee is not None else {"kind": "melee"}
    situation = {
        "charged": me.charged,
        "target_in_cover": cmd.target_in_cover,
        "offensive_grenades": cmd.offensive_grenades,
        "target_already_locked": not me.charged,
    }
    if defender_charged:
        situation["defender_charged"] = True
    try:
        request = request_from_dict(
            {
                "attacker": dict(_spec_profile(s, me)) | {"models": me.models},
                "weapon": melee,
                "target": dict(_spec_profile(s, them)) | {"models": them.models},
                "situation": situation,
            }
        )
    except ProfileError as err:
        raise Refusal("bad_attack", str(err), kind=RefusalKind.INPUT) from None
    start = out.mark()
    result = resolve(request, out.roller)
    section = result.extra.get("combat_result")
    assert isinstance(section, Mapping)
    their_left = result.target_after.models_remaining
    my_left = _int(section["attacker_models_remaining"])
    won = str(section["winner"])
    winner = {"attacker": "unit", "defender": "target"}.get(won, "draw")
    retreating, locked = "", True
    loser = {"unit": cmd.target, "target": cmd.unit}.get(winner)
    if loser is not None and section.get("morale_passed") is False:
        retreating, locked = loser, False
    left = {cmd.unit: my_left, cmd.target: their_left}
    if not my_left or not their_left:
        retreating, locked = "", False
    elif retreating and not left[retreating]:
        retreating = ""
    out.emit(
        CombatFought(
            cmd.unit,
            cmd.target,
            out.roll_since(start),
            my_left,
            their_left,
            winner,
            retreating,
            locked,
            _int(section.get("sweep_casualties")),
        )
    )


def _combat(state: BattleState, unit: str) -> list[str]:
    """Every squad locked, directly or not, with ``unit``: one combat [L1205]."""
    seen, todo = {unit}, [unit]
    while todo:
        for enemy in state.units[todo.pop()].locked:
            if enemy not in seen:
                seen.add(enemy)
                todo.append(enemy)
    return sorted(seen)


@dataclass(slots=True)
class _Batch:
    """The models of a squad that strike with one close-combat weapon (pen rulings B28)."""

    weapon: object  # the weapon object of the PEN combat contract
    models: int | None  # None: the squad's other models
    initiative: int = 0


@dataclass(slots=True)
class _Fighter:
    unit: UnitState
    target: str
    remaining: list[int] | None = None  # W left per model (None: a vehicle)
    start_models: int = 0
    batches: list[_Batch] = field(default_factory=list)

    def strikers(self) -> list[tuple[_Batch, int]]:
        """(batch, models alive in it): the owner removes the plain weapons' models first,
        so the named weapons' models are the last to fall, in the order given (B28)."""
        alive = _alive_models(self)
        out: list[tuple[_Batch, int]] = []
        for batch in self.batches:
            if batch.models is not None:
                n = min(batch.models, alive)
                alive -= n
                out.append((batch, n))
        out.extend((batch, alive) for batch in self.batches if batch.models is None)
        return out


def _in_cover(cmd: Fight) -> frozenset[str]:
    """The charged squads that were in cover (``target_in_cover`` names the target)."""
    return frozenset(cmd.in_cover) | ({cmd.target} if cmd.target_in_cover else set())


def _default_melee(state: BattleState, unit: str) -> object:
    spec = state.unit_spec(unit)
    return spec.melee if spec.melee is not None else {"kind": "melee"}


def _weapon_batches(state: BattleState, cmd: Fight, group: list[str]) -> dict[str, list[_Batch]]:
    """The weapon batches of each squad of the combat: the groups ``cmd.weapons`` names, then
    the squad's own close-combat weapon for its other models."""
    named: dict[str, list[_Batch]] = {}
    seen: set[tuple[str, str]] = set()
    for g in cmd.weapons:
        if g.unit not in group or state.units[g.unit].is_vehicle:
            raise refuse(
                "bad_weapons", f"{g.unit} is not a squad of this combat", kind=RefusalKind.INPUT
            )
        weapon = state.unit_spec(g.unit).weapon(g.weapon)
        profile = weapon.profile if weapon is not None else None
        if not isinstance(profile, Mapping) or profile.get("kind") != "melee":
            raise refuse(
                "bad_weapons",
                f"{g.unit} has no close-combat weapon {g.weapon!r}",
                kind=RefusalKind.INPUT,
            )
        if (g.unit, g.weapon) in seen:
            raise refuse(
                "bad_weapons", f"{g.weapon!r} of {g.unit} is named twice", kind=RefusalKind.INPUT
            )
        seen.add((g.unit, g.weapon))
        named.setdefault(g.unit, []).append(_Batch(profile, g.models))
    for unit, batches in named.items():
        total = sum(b.models or 0 for b in batches)
        if min(b.models or 0 for b in batches) < 1 or total > state.units[unit].models:
            raise refuse(
                "bad_weapons",
                f"{unit}: 1 or more models per weapon, {state.units[unit].models} in all at most",
                kind=RefusalKind.INPUT,
            )
    return {
        unit: [*named.get(unit, []), _Batch(_default_melee(state, unit), None)] for unit in group
    }


def _strike_request(
    state: BattleState,
    me: UnitState,
    models: int,
    them: UnitState,
    cmd: Fight,
    left: int,
    weapon: object = None,
) -> AttackRequest:
    melee = _default_melee(state, me.id) if weapon is None else weapon
    if them.is_vehicle:
        target = _vehicle_target(state, them, cmd.facing)
    else:
        target = dict(_spec_profile(state, them)) | {"models": max(left, 1)}
    situation = {
        "charged": me.charged,
        "target_in_cover": me.charged and them.id in _in_cover(cmd),
        "offensive_grenades": cmd.offensive_grenades,
        "target_already_locked": not me.charged,
    }
    attacker = dict(_spec_profile(state, me)) | {"models": models}
    return _request(attacker, melee, target, situation)


def _fight_many(out: _Out, cmd: Fight, group: list[str], defender_charged: bool = False) -> None:
    """A combat of several squads, or with a vehicle, fought at once [L1205-L1213]: every
    squad strikes the enemy squad it is assigned to, in Initiative steps, casualties removed
    at the end of each step [L1237-L1240]; the side that inflicted more casualties (all its
    squads together) wins; each losing squad tests morale at the difference, and the winners
    not locked with another squad may sweep the fleeing ones [L1250-L1258].

    Vehicles do not strike (walkers are left to the table); a destroyed vehicle counts as
    one casualty; vehicles take no morale test [L940]; a vehicle without WS is never locked
    [L209] (pen rulings)."""
    s = out.state
    if defender_charged:  # only for this combat's strikes: no event carries the flag
        s = s.with_unit(replace(s.units[cmd.target], charged=True))
    # a duel: the two characters fight each other only [L1226]
    duel = {
        u: d for u in group if (d := s.units[u].duel) is not None and d in group and d in s.units
    }
    targets = {} if (cmd.unit in duel) != (cmd.target in duel) else {cmd.unit: cmd.target}
    for pairing in cmd.assign:
        if pairing.unit not in group or pairing.target not in s.units[pairing.unit].locked:
            raise refuse(
                "bad_pairing",
                f"{pairing.unit} is not locked with {pairing.target}",
                kind=RefusalKind.INPUT,
            )
        if duel.get(pairing.unit, pairing.target) != pairing.target or (
            pairing.target in duel and pairing.unit not in duel
        ):
            raise refuse(
                "bad_pairing",
                f"a duel: {pairing.unit} and {pairing.target} cannot fight each other [L1226]",
                kind=RefusalKind.INPUT,
            )
        targets[pairing.unit] = pairing.target
    batches = _weapon_batches(s, cmd, group)
    fighters: dict[str, _Fighter] = {}
    for unit in group:
        me = s.units[unit]
        free = sorted(e for e in me.locked if e not in duel)
        target = duel.get(unit) or targets.get(unit, free[0] if free else "")
        fighter = _Fighter(me, target, start_models=me.models, batches=batches[unit])
        if not me.is_vehicle:
            fighter.remaining = [me.wounds] * me.models
        fighters[unit] = fighter
    chargers = [f.unit for f in fighters.values() if f.unit.charged]
    heavy_chargers = any(
        c.is_vehicle or getattr(_profile(s, c), "is_monstrous", False) for c in chargers
    )
    for f in fighters.values():
        me = f.unit
        if me.is_vehicle:  # walkers' blows are left to the table (pen rulings B8)
            continue
        ten = (
            me.id in _in_cover(cmd)
            and not me.charged
            and any(c.seat != me.seat for c in chargers)
            and not cmd.offensive_grenades
            and not heavy_chargers
        )
        one = s.gone_to_ground(me) or me.refused_duel  # a refused duel: I1 [L1228]
        probe = s.units[f.target or min(me.locked)]
        for batch in f.batches:
            request = _strike_request(s, me, me.models, probe, cmd, 1, batch.weapon)
            own = melee_initiatives(request)[0]
            batch.initiative = own if ten == one else (10 if ten else 1)
    # Hit & Run [L416]: the step each squad tries to leave after (its own first step for 0)
    leaving = {
        f.unit.id: f.unit.hit_and_run or max((b.initiative or 0) for b in f.batches)
        for f in fighters.values()
        if f.unit.hit_and_run is not None and str(Rule.HIT_AND_RUN) in f.unit.rules
    }
    left: set[str] = set()
    start = out.mark()
    steps = sorted(
        {b.initiative for f in fighters.values() if not f.unit.is_vehicle for b in f.batches},
        reverse=True,
    )
    for step in [step for step in steps if step]:
        strikers = [
            (f, batch, models)
            for f in fighters.values()
            if not f.unit.is_vehicle and f.unit.id not in left
            for batch, models in f.strikers()
            if batch.initiative == step
        ]
        for f, batch, models in strikers:
            if not f.target:
                continue  # its only enemies fight a duel [L1226]
            victim = fighters[f.target]
            if not models or not _alive_models(victim) or f.target in left:
                continue  # a squad wiped out (or gone) earlier: those attacks are lost
            request = _strike_request(
                s, f.unit, models, victim.unit, cmd, _alive_models(victim), batch.weapon
            )
            if victim.remaining is not None:
                strike(request, out.roller, victim.remaining)
                continue
            result = resolve(request, out.roller)
            damage = _vehicle_damage(victim.unit, result.extra.get("vehicle"), result.totals)
            if damage is not None:
                vd = damage[0]
                victim.unit = replace(
                    victim.unit,
                    hp_lost=vd.hp_lost,
                    damage_bonus=vd.damage_bonus,
                    weapons_damaged=vd.weapons_damaged,
                    reduced_mobility=vd.reduced_mobility,
                    immobilised=vd.immobilised,
                    shaken=victim.unit.shaken or vd.shaken,
                    stunned=victim.unit.stunned or vd.stunned,
                    results_this_turn=victim.unit.results_this_turn + vd.results,
                    models=0 if vd.destroyed else 1,
                    out_of_control=victim.unit.out_of_control or vd.out_of_control,
                )
        _hit_and_run(out, s, fighters, leaving, left, step)
    lost = dict.fromkeys(SEATS, 0)
    for f in fighters.values():
        lost[f.unit.seat] += f.start_models - _alive_models(f)
    gap = abs(lost["A"] - lost["B"])
    winner = "" if not gap else ("A" if lost["A"] < lost["B"] else "B")
    retreating: list[str] = []
    swept = 0
    if winner:
        for f in fighters.values():
            me = f.unit
            if me.seat == winner or me.is_vehicle or not _alive_models(f) or me.id in left:
                continue  # (a squad gone by Hit & Run takes no test [L416])
            profile = _profile(s, me)
            if not _fearless(me):
                malus = 0 if profile.has(Rule.STUBBORN) else gap
                if rolls.ld_test_procedure(out.roller, profile.leadership, malus, "morale"):
                    continue
                retreating.append(me.id)
        for unit in retreating:
            f = fighters[unit]
            if str(Rule.ATSKNF) in f.unit.rules:
                continue  # never caught [L418]
            pursuers = [
                p
                for p in fighters.values()
                if p.unit.seat == winner
                and _alive_models(p)
                and not p.unit.is_vehicle
                and unit in p.unit.locked
                and str(Rule.SLOW_AND_PURPOSEFUL) not in p.unit.rules
                and all(
                    e in retreating or e in left or not _alive_models(fighters[e])
                    for e in p.unit.locked
                )
            ]
            if not pursuers:
                continue
            best = max(getattr(_profile(s, p.unit), "initiative", None) or 1 for p in pursuers)
            mine = getattr(_profile(s, f.unit), "initiative", None) or 1
            if rolls.roll_off_procedure(out.roller, best, mine, f"sweep {unit}"):
                extra = min(gap, _alive_models(f))
                assert f.remaining is not None
                for i in [i for i, w in enumerate(f.remaining) if w > 0][:extra]:
                    f.remaining[i] = 0
                swept += extra
    outcomes: list[SquadOutcome] = []
    for f in fighters.values():
        before = s.units[f.unit.id]
        if f.remaining is None:
            vehicle = _vehicle_damage_since(before, f.unit)
            outcomes.append(SquadOutcome(f.unit.id, f.unit.models, 0, vehicle))
        else:
            models, taken = _after_strike(before, f.remaining)
            outcomes.append(SquadOutcome(f.unit.id, models, taken))
    alive_retreating = tuple(
        u for u in retreating if any(o.unit == u and o.models_left for o in outcomes)
    )
    out.emit(
        CombatResolved(
            cmd.unit,
            cmd.target,
            out.roll_since(start),
            tuple(outcomes),
            winner,
            alive_retreating,
            swept,
            tuple(sorted(u for u in left if _alive_models(fighters[u]))),
        )
    )
    for o in outcomes:
        if o.vehicle is not None and o.vehicle.destroyed and s.units[o.unit].alive:
            _passengers_out(out, o.unit, False)


def _hit_and_run(
    out: _Out,
    s: BattleState,
    fighters: dict[str, _Fighter],
    leaving: dict[str, int],
    left: set[str],
    step: int,
) -> None:
    """At the end of an Initiative step, each squad that said it would leave by Hit & Run
    after this step (or after the first step at or below the one it named) tries once: 1D6 +
    its majority I against 1D6 + the best I of the enemy squads still locked with it; above
    theirs, it is gone from the combat; otherwise it fights on [L416]."""
    for unit in sorted(leaving):
        f = fighters[unit]
        if step > leaving[unit] or unit in left or not _alive_models(f):
            continue
        del leaving[unit]  # one try
        enemies = [
            fighters[e].unit
            for e in sorted(f.unit.locked)
            if e in fighters and _alive_models(fighters[e]) and e not in left
        ]
        if not enemies:
            continue
        best = max(getattr(_profile(s, e), "initiative", None) or 1 for e in enemies)
        mine = getattr(_profile(s, f.unit), "initiative", None) or 1
        if not rolls.roll_off_procedure(out.roller, best, mine, f"hit & run {unit}"):
            left.add(unit)


def may_hit_and_run(state: BattleState, unit: UnitState) -> bool:
    """A Hit & Run squad in a combat not yet fought this assault phase [L416]."""
    return (
        state.stage is Stage.BATTLE
        and state.phase is Phase.ASSAULT
        and str(Rule.HIT_AND_RUN) in unit.rules
        and bool(unit.locked)
        and not unit.fought
        and unit.hit_and_run is None
        and unit.on_table
    )


def _declare_hit_and_run(out: _Out, cmd: HitAndRun, actor: str) -> None:
    s = out.state
    _stage(s, Stage.BATTLE)
    me = _own(s, cmd.unit, actor)
    if not may_hit_and_run(s, me):
        raise refuse(
            "cannot_hit_and_run",
            "a Hit & Run squad says so before the combat it is in is fought [L416]",
        )
    if not 0 <= cmd.initiative <= 10:
        raise refuse("bad_initiative", "an Initiative step: 1 to 10, or 0", kind=RefusalKind.INPUT)
    out.emit(HitAndRunDeclared(cmd.unit, cmd.initiative))


def _alive_models(f: _Fighter) -> int:
    if f.remaining is None:
        return f.unit.models
    return sum(1 for w in f.remaining if w > 0)


def _vehicle_damage_since(before: UnitState, after: UnitState) -> VehicleDamage | None:
    if before == after:
        return None
    return VehicleDamage(
        hp_lost=after.hp_lost,
        damage_bonus=after.damage_bonus,
        weapons_damaged=after.weapons_damaged,
        reduced_mobility=after.reduced_mobility,
        immobilised=after.immobilised,
        shaken=after.shaken and not before.shaken,
        stunned=after.stunned and not before.stunned,
        destroyed=after.models == 0,
        results=after.results_this_turn[len(before.results_this_turn) :],
        out_of_control=after.out_of_control and not before.out_of_control,
    )


def _consolidate(out: _Out, cmd: Consolidate, actor: str) -> None:
    s = out.state
    _stage(s, Stage.BATTLE)
    if s.phase is not Phase.ASSAULT:  # the winners of either side consolidate [L1260]
        raise refuse("wrong_phase", f"not in the {s.phase} phase")
    me = _own(s, cmd.unit, actor)
    if not me.fought or me.locked or me.consolidated or me.retreating or not me.on_table:
        raise refuse("cannot_consolidate", "only a squad whose combat ended consolidates [L1260]")
    _inches(cmd.inches, 6, "consolidation")
    out.emit(Consolidated(cmd.unit, cmd.inches))


def may_retreat(state: BattleState, unit: UnitState) -> bool:
    """A squad still locked in the combat it fought this phase, which its side did not win,
    or lost with its morale test passed: its owner may have it retreat [L1244], [L1254]."""
    return (
        state.stage is Stage.BATTLE
        and state.phase is Phase.ASSAULT
        and unit.fought
        and unit.combat_gap is not None
        and bool(unit.locked)
        and unit.on_table
        and not unit.retreating
        and not unit.is_vehicle
    )


def _retreat(out: _Out, cmd: Retreat, actor: str) -> None:
    """The squad retreats by its owner's choice; the enemy squads of that combat locked with
    no other squad may sweep it: 1D6 + the best I against 1D6 + its I, caught on a total <=
    theirs, it loses the combat's casualty difference [L1256-L1258] (none after a draw: no
    roll, pen rulings B29). Ils ne connaîtront pas la peur: never caught [L418]; a fearless
    squad caught stays locked, its models not destroyed [L935]."""
    s = out.state
    _stage(s, Stage.BATTLE)
    me = _own(s, cmd.unit, actor)
    if not may_retreat(s, me):
        raise refuse(
            "cannot_retreat",
            "only a squad still locked in a combat it fought this assault phase and did not "
            "win, or lost with its morale test passed, chooses to retreat [L1244], [L1254]",
        )
    gap = me.combat_gap or 0
    pursuers = [
        s.units[e]
        for e in sorted(me.locked)
        if s.units[e].alive
        and not s.units[e].is_vehicle
        and str(Rule.SLOW_AND_PURPOSEFUL) not in s.units[e].rules
        and s.units[e].locked <= {me.id}  # not in melee with another squad [L1256]
    ]
    start = out.mark()
    caught = False
    if gap and pursuers and str(Rule.ATSKNF) not in me.rules:
        best = max(getattr(_profile(s, p), "initiative", None) or 1 for p in pursuers)
        mine = getattr(_profile(s, me), "initiative", None) or 1
        caught = rolls.roll_off_procedure(out.roller, best, mine, f"sweep {me.id}")
    models, taken = me.models, me.wounds_taken
    stays = caught and str(Rule.FEARLESS) in me.rules
    if caught and not stays:  # the owner removes the worn model among them
        models, taken = max(me.models - gap, 0), 0
    out.emit(Retreated(me.id, out.roll_since(start), caught, models, taken, stays))


def may_disengage(state: BattleState, unit: UnitState) -> bool:
    """A squad with Désengagement or Hit & Run still locked after the combat it fought this
    assault phase [L392], [L416]."""
    return (
        state.stage is Stage.BATTLE
        and state.phase is Phase.ASSAULT
        and unit.fought
        and bool(unit.locked)
        and unit.on_table
        and not unit.retreating
        and bool({str(Rule.DISENGAGE), str(Rule.HIT_AND_RUN)} & unit.rules)
    )


def _disengage(out: _Out, cmd: Disengage, actor: str) -> None:
    """Désengagement: at the end of an assault phase a locked squad leaves its combat with a
    normal move; the enemies left cannot sweep it but may consolidate [L392-L394]. Hit & Run
    disengages so at the end of the assault phase whatever its roll-off [L416] (pen rulings
    B34: leaving between two Initiative steps stays on the table)."""
    s = out.state
    _stage(s, Stage.BATTLE)
    me = _own(s, cmd.unit, actor)
    if not may_disengage(s, me):
        raise refuse(
            "cannot_disengage",
            "only a squad with Désengagement or Hit & Run still locked after the combat it "
            "fought this assault phase disengages [L392], [L416]",
        )
    _inches(cmd.inches, _move_limit(out.state, me, Speed.NORMAL), "disengagement (a normal move)")
    out.emit(Disengaged(cmd.unit, cmd.inches))


def _end_phase(out: _Out, actor: str) -> None:
    s = out.state
    _stage(s, Stage.BATTLE)
    if s.active_seat != actor:
        raise refuse("not_your_turn", "it is your opponent's turn", kind=RefusalKind.FORBIDDEN)
    if s.phase is Phase.START:
        raise refuse("start_turn", "start the turn first (start_turn)")
    if s.phase is Phase.MOVEMENT:
        if s.active_unit is not None:
            raise refuse("activation_open", f"finish {s.active_unit} first (end_activation)")
        waiting = [u.id for u in s.seat_units(actor) if u.place is Place.AVAILABLE]
        if waiting and not s.alternation:
            raise refuse("reserves_waiting", f"bring on {', '.join(sorted(waiting))} [L867]")
        if s.alternation and s.playing is None and s.unplayed(actor):
            raise refuse("play_a_squad", "choose the squad you play (a move, even stationary)")
        _loose_first(s, actor, "")
        for unit in sorted(u.id for u in s.seat_units(other(actor)) if u.alert and u.shot):
            _end_alert(out, unit)  # the alert shooting phase ends with this movement phase
        for unit in sorted(u.id for u in s.seat_units(actor) if u.out_of_control and u.rammed):
            out.emit(OutOfControlEnded(unit))  # immobilised at the end of the phase [L1446]
        out.emit(PhaseStarted(str(Phase.ASSAULT)))
        return
    if s.alternation:
        _pass(out, actor)
        return
    if s.turn == 0:
        out.emit(TurnStarted(s.round, 1))
        return
    _end_round(out)


def _pass(out: _Out, actor: str) -> None:
    """Alternation mode: the squad has played all its phases; the other player plays his
    next squad, or this one again when the other has played them all; the round ends when
    both have [L842-L844]."""
    s = out.state
    mine = [u for u in s.unplayed(actor) if u != s.playing]
    if s.playing is None and mine:
        raise refuse("play_a_squad", "play one of your squads before passing [L842]")
    theirs = s.unplayed(other(actor))
    nxt = other(actor) if theirs else actor
    out.emit(ActivationPassed(s.playing or "", 0 if nxt == s.first else 1))
    if not theirs and not mine:
        _end_round(out)


def _end_round(out: _Out) -> None:
    s = out.state
    if s.round >= 5:  # end of game rounds 5 and 6: 3+ / 5+ to go on; 7 ends it [L826]
        target = tables.game_continues_target(s.round)
        if target is None:
            out.emit(GameLengthRolled(s.round, NO_DICE, False))
        else:
            start = out.mark()
            die = out.roller.roll(6, f"game length after round {s.round}", stage="game_length")
            out.roller.annotate(outcome="continues" if die >= target else "ends")
            out.emit(GameLengthRolled(s.round, out.roll_since(start), die >= target))
        if out.state.stage is Stage.SCORING:
            _maybe_finish(out)
            return
    out.emit(TurnStarted(s.round + 1, 0))


def objectives(state: BattleState) -> list[str]:
    assert state.setup is not None
    return [f"objective-{i + 1}" for i in range(state.setup.objectives)] + [
        f"zone-{i + 1}" for i in range(state.setup.zones)
    ]


def victory_points(state: BattleState) -> dict[str, int]:
    """§3.2: kill points (cost, half cost at half strength or half hull points) and X per
    objective or zone held [L818-L821]."""
    assert state.setup is not None
    vp = dict.fromkeys(SEATS, 0)
    if state.setup.kill_points:
        for unit in state.units.values():
            cost = state.unit_spec(unit.id).points
            gain = 0
            if not unit.alive:
                gain = cost
            elif (
                unit.is_vehicle and unit.hull_points and 2 * unit.hp_lost >= unit.hull_points
            ) or (
                not unit.is_vehicle and 2 * _wounds_lost(unit) >= unit.models_start * unit.wounds
            ):
                gain = cost // 2
            vp[other(unit.seat)] += gain
    for seat in state.control.values():
        if seat:
            vp[seat] += state.setup.objective_value
    return vp


def _half_gone(unit: UnitState) -> bool:
    if unit.is_vehicle:
        return bool(unit.hull_points) and 2 * unit.hp_lost >= (unit.hull_points or 0)
    return 2 * _wounds_lost(unit) >= unit.models_start * unit.wounds


def _wounds_lost(unit: UnitState) -> int:
    return (unit.models_start - unit.models) * unit.wounds + unit.wounds_taken


def all_reported(state: BattleState) -> bool:
    return all(o in state.control for o in objectives(state))


def _maybe_finish(out: _Out) -> None:
    """The battle ends once every objective is reported, and, when the set-up asks for it,
    both players confirmed them (pen rulings B18)."""
    s = out.state
    if not all_reported(s):
        return
    assert s.setup is not None
    if s.setup.confirm_result and not set(SEATS) <= s.confirmed:
        return
    vp = victory_points(s)
    assert s.setup is not None
    gap = vp["A"] - vp["B"]
    winner = "" if abs(gap) < s.setup.objective_value else ("A" if gap > 0 else "B")
    out.emit(BattleEnded(vp["A"], vp["B"], winner))


def _confirm(out: _Out, actor: str) -> None:
    s = out.state
    _stage(s, Stage.SCORING)
    assert s.setup is not None
    if not s.setup.confirm_result:
        raise refuse("no_confirmation", "this battle ends when the objectives are reported")
    if not all_reported(s):
        raise refuse("objectives_unreported", "say who holds every objective first")
    if actor in s.confirmed:
        raise refuse("already_confirmed", "you have confirmed the result")
    out.emit(ResultConfirmed(actor))
    _maybe_finish(out)


def _report(out: _Out, cmd: ReportControl, actor: str) -> None:
    _stage(out.state, Stage.SCORING)
    if cmd.objective not in objectives(out.state):
        raise refuse("unknown_objective", f"no objective {cmd.objective!r}", kind=RefusalKind.INPUT)
    if cmd.seat not in ("", *SEATS):
        raise refuse("bad_seat", "seat A, B or empty", kind=RefusalKind.INPUT)
    out.emit(ControlReported(cmd.objective, cmd.seat))
    _maybe_finish(out)


# -- the rule book ---------------------------------------------------------------------------


def decide(
    state: BattleState,
    command: Tagged,
    actor: str,
    dice: Roller,
    *,
    defender_charged: bool = False,
) -> Decision[BattleState]:
    """``defender_charged`` (a ``Fight`` only): the target has the charge bonus this round as
    well, for the Dynamics variant's mutual assault in one pass (Dyn [L96]); PEN leaves it off."""
    if actor not in SEATS:
        raise refuse("bad_seat", "only seats A and B act", kind=RefusalKind.FORBIDDEN)
    if state.stage is Stage.ENDED:
        raise refuse("battle_over", "the battle is over")
    out = _Out(state, dice)
    match command:
        case CreateBattle():
            _create(out, command)
        case DeclareReserve():
            _declare_reserve(out, command, actor)
        case EndStep():
            _end_step(out, actor)
        case RollOff():
            _roll_off(out)
        case ChooseFirst():
            _choose_first(out, command, actor)
        case Deploy():
            _deploy(out, command, actor)
        case ScoutMove():
            _scout(out, command, actor)
        case StartTurn():
            _start_turn(out, command, actor)
        case Arrive():
            _arrive(out, command, actor)
        case Move():
            _move(out, command, actor)
        case GoToGround():
            _go_to_ground(out, command, actor)
        case GoOnAlert():
            _go_on_alert(out, command, actor)
        case Ram():
            _ram(out, command, actor)
        case Shoot():
            _shoot(out, command, actor)
        case EndActivation():
            _end_activation(out, command, actor)
        case Charge():
            _charge(out, command, actor)
        case Fight():
            _fight(out, command, actor, defender_charged)
        case Embark():
            _embark(out, command, actor)
        case Disembark():
            _disembark(out, command, actor)
        case Consolidate():
            _consolidate(out, command, actor)
        case Retreat():
            _retreat(out, command, actor)
        case Disengage():
            _disengage(out, command, actor)
        case Challenge():
            _challenge(out, command, actor)
        case HitAndRun():
            _declare_hit_and_run(out, command, actor)
        case AnswerChallenge():
            _answer_challenge(out, command, actor)
        case EndPhase():
            _end_phase(out, actor)
        case ReportControl():
            _report(out, command, actor)
        case ConfirmResult():
            _confirm(out, actor)
        case _:
            raise refuse("unknown_command", f"{command.kind} is not a battle command")
    return Decision(tuple(out.events), out.state)


@dataclass(frozen=True, slots=True)
class PenRuleBook:
    """The PEN battle's rule book for :class:`app.engine.match.log.Match`."""

    @property
    def rule_system(self) -> str:
        return SYSTEM_ID

    @property
    def event_codec(self) -> TaggedCodec:
        return EVENT_CODEC

    @property
    def command_codec(self) -> TaggedCodec:
        return COMMAND_CODEC

    def initial_state(self) -> BattleState:
        return BattleState()

    def evolve(self, state: BattleState, event: Event) -> BattleState:
        return evolve(state, event)

    def decide(
        self, state: BattleState, command: Tagged, actor: str, dice: Roller
    ) -> Decision[BattleState]:
        return decide(state, command, actor, dice)


RULE_BOOK = PenRuleBook()
