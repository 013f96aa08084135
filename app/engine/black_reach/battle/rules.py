"""``decide``: every command checked against the state, then turned into events.

The pure engine does the rules: :mod:`..turn` (Order tokens, their commitments and the order
they are played in), :mod:`..movement` (paths), :mod:`..los` (line of sight, range),
:mod:`..pipeline` (the modified-CV pipeline and the assault totals), :mod:`..forces` (step
losses, Hit Points, flips) and :mod:`..scenario` (sudden death, Breaking Points, the
end-of-turn check). Readings where the rules are silent: docs/rulings/black-reach.md
("Match").
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from itertools import combinations

from app.engine.black_reach.armies import Tokens, order_tokens
from app.engine.black_reach.battle.ambush import (
    ASSAULT as ENGAGED,
)
from app.engine.black_reach.battle.ambush import (
    SHOOTS,
    ambushed,
    as_spotted,
    auspex_spots,
    spot_after_move,
    spot_on_the_way,
    spot_step,
    unmask,
    unmask_to_shoot,
    unmasked,
)
from app.engine.black_reach.battle.ambush import (
    blockers as ambush_blockers,
)
from app.engine.black_reach.battle.assaults_transport import aboard_start
from app.engine.black_reach.battle.assaults_vehicle import (
    vehicle_on_infantry,
    vehicle_takes_and_pushes,
)
from app.engine.black_reach.battle.cards import (
    ASSAULT_BONUS,
    MOVE_BONUS,
    SHOT_BONUS,
    armour_card_ready,
    card_bonus,
    draw_cards,
    note_use,
    play_card,
    spend_cards,
    use_armour_card,
)
from app.engine.black_reach.battle.commands import (
    COMMAND_CODEC,
    Assault,
    Burst,
    BurstShare,
    ChooseSquare,
    ConfirmResult,
    CreateBattle,
    DeclinePower,
    Demolish,
    DeployAboard,
    DeployUnit,
    DoubleShot,
    DrawCards,
    EndDeployment,
    EndReserve,
    EndScouting,
    Flame,
    Grenade,
    Hold,
    KeepRoll,
    Kombi,
    MaintainPowers,
    Manifest,
    Move,
    Overwatch,
    PassOverwatch,
    PlaceOrders,
    PlayCard,
    ReadyEquipment,
    ReadyRepair,
    Reroll,
    ReserveMove,
    ScoutMove,
    Shoot,
    Snipe,
    Step,
    TemplateFire,
    VehicleFire,
    WeaponShot,
)
from app.engine.black_reach.battle.equipment import (
    armour_saves,
    banner_bonus,
    best_save,
    gear_dv,
    gear_grants,
    kombi_weapon,
    note_gear,
    note_pole_save,
    ready_equipment,
    spend_gear,
    use_kombi,
)
from app.engine.black_reach.battle.events import (
    EVENT_CODEC,
    ActivationEnded,
    ArmourSaved,
    AssaultResolved,
    BattleCreated,
    BattleEnded,
    BeamFired,
    BurstDeclared,
    DamageLocated,
    Demolished,
    DeploymentEnded,
    DestructionDealt,
    FlamerFired,
    ForcedMove,
    GrenadeThrown,
    InitiativeKept,
    JumpLanded,
    MoveDeclared,
    OrderRevealed,
    OrdersCommitted,
    OrdersPlaced,
    OverwatchAnswered,
    PowerAgainDeclined,
    PowerAgainOffered,
    PowerLost,
    PowerManifested,
    RepairUsed,
    RerollAnswered,
    RerollOffered,
    ReserveEnded,
    ResultConfirmed,
    ScoutingEnded,
    ScoutingStarted,
    ScoutMoved,
    SquareAwaited,
    StepsTaken,
    SuppressedPlaced,
    SuppressedRemoved,
    TemplatePlaced,
    TurnEnded,
    TurnStarted,
    UnitDeployed,
    UnitDeployedAboard,
    UnitEmbarked,
    UnitFlipped,
    UnitMoved,
    UnitsActivated,
    UnitShot,
    UnitsJumped,
    UnitSniped,
)
from app.engine.black_reach.battle.evolve import evolve, placement_of
from app.engine.black_reach.battle.flamer import plan_flame
from app.engine.black_reach.battle.grenades import plan_grenade
from app.engine.black_reach.battle.jump import jump_partner, landing_problem, waiting_jumpers
from app.engine.black_reach.battle.powers import (
    PERSISTENT_POWERS,
    dome_bonus,
    enfeebled,
    maintain_powers,
    perfect_timing,
    perils_by_hand,
    silenced,
    warpath_bonus,
)
from app.engine.black_reach.battle.repairs import find_repair, ready_repair
from app.engine.black_reach.battle.rerolls import (
    Offers,
    Pause,
    ScriptRoller,
    involved_units,
    reroll_choices,
    seeded,
)
from app.engine.black_reach.battle.setup import SEATS, BattleSetup, Deploy, parse_setup
from app.engine.black_reach.battle.state import (
    BattleState,
    PendingMove,
    RerollAnswer,
    SecretOrder,
    Stage,
    UnitState,
)
from app.engine.black_reach.battle.structures import (
    destruction_dice,
    roll_destruction,
    structure_holding,
    structure_of,
    template_destruction,
)
from app.engine.black_reach.board import Intercase, Square, UnitClass
from app.engine.black_reach.forces import (
    Ability,
    AbilityRef,
    Face,
    FaceKind,
    Group,
    PerilsEffect,
    PerilsMarker,
    PowerEffect,
    PsykerKind,
    RecruitmentOption,
    Role,
    Weapon,
    apply_step,
    weapon_lost,
)
from app.engine.black_reach.gear import order_tokens as unit_order_tokens
from app.engine.black_reach.los import (
    Arc,
    Blocker,
    Facing,
    Sight,
    best_line_of_sight,
    centre,
    crossings,
    distance,
    in_arc,
    is_long_range,
    sight_to_intercase,
)
from app.engine.black_reach.movement import (
    SUPPRESSED_MV,
    Mover,
    Passenger,
    Placement,
    can_embark,
    check_path,
    transport_has_room,
    zone_of_control,
)
from app.engine.black_reach.pipeline import (
    SUPPRESSED_PENALTY,
    AssaultOutcome,
    ShotOutcome,
    assault_dice,
    assault_modifiers,
    assault_outcome,
    final_penalty,
    modified_cv,
    shot_final,
    shot_outcome,
    suppression_markers,
    target_dv,
)
from app.engine.black_reach.requests import Attacker, Kind, OddsRequest, Situation, Target
from app.engine.black_reach.scenario import (
    Outcome,
    Scenario,
    end_of_turn,
    objective_holder,
    sudden_death,
)
from app.engine.black_reach.tables import (
    DEFAULT_SNIPER_TABLE,
    DamageMarker,
    LibrarianPerils,
    SniperEffect,
    WeirdboyPerils,
    crushing_points,
    damage_location,
    librarian_perils,
    sniper_effect,
    structure_destroyed,
    weirdboy_perils,
)
from app.engine.black_reach.templates import (
    QUARTERS,
    Template,
    landing,
    template_distance,
    template_name,
)
from app.engine.black_reach.turn import (
    Phase,
    Token,
    TokenKind,
    TurnError,
    commitment,
    due,
)
from app.engine.errors import ProfileError
from app.engine.match.codec import JsonValue, Tagged, TaggedCodec
from app.engine.match.dice import Roll, take_roll
from app.engine.match.errors import Refusal, RefusalKind
from app.engine.match.events import Emitted, Event
from app.engine.match.log import Decision
from app.engine.roller import Roller

__all__ = [
    "MAX_SUPPORT",
    "PLAYED_POWERS",
    "RULE_BOOK",
    "SYSTEM_ID",
    "TARGETED_POWERS",
    "BlackReachRuleBook",
    "ShotPlan",
    "assault_request",
    "assault_start_problem",
    "attack_side",
    "burst_problem",
    "damage_set_of",
    "decide",
    "deploy_aboard_problem",
    "has_overwatch",
    "overwatch_steps",
    "plan_shot",
    "plan_snipe",
    "plan_template",
    "power_problem",
    "template_request",
    "template_targets",
    "watch_shots",
    "working_weapons",
]

SYSTEM_ID = "black-reach"
MAX_SUPPORT = 8  # the defender's zone of control has 8 squares
MAX_PATH = 40
MAX_NONCE = 128
MAX_BURST = 8  # targets of one Rafale (they stand within 2 squares of each other)
BURST_SPREAD = 2  # Rafale targets lie within 2 squares of each other [L1304-L1305]
REAR_BONUS = 2  # a shot through a heavy vehicle's rear edge [L651-L656]
FRONT_ARMOUR = 2  # Armure Frontale: +2 DV through the front edge [L1768-L1772]
HULL_SUPPRESSED = 2  # a Hull marker also places 2 Suppressed markers [L676-L681]


def refuse(
    code: str, message: str, *, kind: RefusalKind = RefusalKind.RULES, **details: JsonValue
) -> Refusal:
    return Refusal(code, message, kind=kind, details=details)


class _Out:
    """Events being decided, with the state after each (``evolve`` applied as we go)."""

    def __init__(self, state: BattleState, roller: Roller) -> None:
        self.state = state
        self.roller = roller
        self.events: list[Emitted] = []
        self.card_uses: set[str] = set()  # units whose readied card bonus a roll counted
        self.gear_uses: set[tuple[str, str]] = set()  # (unit, marker option) a roll counted
        self.command: Tagged | None = None  # the command being decided
        self.offers: Offers | None = None  # the rolls a side may reroll stop it (rulings 153)

    def emit(self, event: Event, audience: tuple[str, ...] | None = None) -> None:
        if self.offers is not None:
            dice = tuple(r.value for r in self.roller.records)
            self.offers.check(self.state, event, audience, dice)
        before = self.state
        self.state = evolve(self.state, event)
        self.events.append(Emitted(event, audience))
        if isinstance(event, UnitMoved | ForcedMove):
            _crush(self, before, event)
        if isinstance(event, UnitMoved):
            spot_on_the_way(self, before, event)  # an ambushed mover [L1818-L1820]


def _crush(out: _Out, before: BattleState, event: UnitMoved | ForcedMove) -> None:
    """A heavy vehicle entering a wreck's squares deals it 1 Destruction point, 2 when it
    enters several of them in one move [L368-L376]; at its structure value the wreck is
    removed [L1186-L1194] (a wreck without one is never removed)."""
    u = before.units[event.unit]
    if u.counter.unit_class is not UnitClass.HEAVY_VEHICLE or u.placement is None:
        return
    if isinstance(event, ForcedMove) and event.why == ASSAULT_INTO_WRECK:
        return  # its 1 point is the assault's (rulings 107)
    steps = event.path if isinstance(event, UnitMoved) else (event.to,)
    entered: set[Square] = set()
    facing = u.placement.facing
    for step in steps:
        p = placement_of(step, u.counter.footprint, facing)
        facing = p.facing
        entered |= p.squares
    entered -= u.placement.squares
    for w in before.units.values():
        terrain = w.wreck_terrain()
        if terrain is None or w.uid == u.uid:
            continue
        points = crushing_points(len(entered & terrain.squares))
        if not points:
            continue
        total = out.state.destruction.get(w.uid, 0) + points
        removed = terrain.structure is not None and structure_destroyed(total, terrain.structure)
        out.emit(DestructionDealt(w.uid, points, total, removed, u.uid))


# -- checks ----------------------------------------------------------------------------------


def _stage(state: BattleState, stage: Stage) -> None:
    if state.stage is not stage:
        raise refuse("wrong_stage", f"not now: the battle is at the {state.stage} stage")


def _phase(state: BattleState, phase: Phase) -> None:
    _stage(state, Stage.BATTLE)
    assert state.turn is not None
    if state.turn.phase is not phase:
        raise refuse("wrong_phase", f"not in the {phase} phase (it is the {state.turn.phase})")


def _unit(state: BattleState, uid: str) -> UnitState:
    if uid not in state.units:
        raise refuse("unknown_unit", f"there is no unit {uid!r}", kind=RefusalKind.INPUT)
    return state.units[uid]


def _own(state: BattleState, uid: str, side: str) -> UnitState:
    u = _unit(state, uid)
    if u.side != side:
        raise refuse("not_your_unit", f"{uid} is not yours", kind=RefusalKind.FORBIDDEN)
    return u


def _standing(u: UnitState) -> UnitState:
    if u.alive and u.embarked_in is not None:
        raise refuse(
            "embarked",
            f"{u.uid} is in a transport: it cannot be shot, assaulted or support [L2052-L2054]",
        )
    if not u.alive or u.placement is None:
        raise refuse("unit_gone", f"{u.uid} is not on the battlefield")
    return u


def _present(u: UnitState) -> UnitState:
    if not u.present:
        raise refuse("unit_gone", f"{u.uid} is not on the battlefield")
    return u


def _placements(u: UnitState, path: Sequence[Step]) -> list[Placement]:
    if not path:
        raise refuse("empty_path", "a move needs at least one step", kind=RefusalKind.INPUT)
    if len(path) > MAX_PATH:
        raise refuse("path_too_long", f"at most {MAX_PATH} steps", kind=RefusalKind.INPUT)
    out: list[Placement] = []
    facing = u.placement.facing if u.placement is not None else Facing.N
    for i, step in enumerate(path):
        try:
            p = placement_of(step, u.counter.footprint, facing)
        except (KeyError, ValueError):
            raise refuse(
                "bad_step",
                f"step {i + 1}: facing must be one of {', '.join(f.name for f in Facing)}",
                kind=RefusalKind.INPUT,
            ) from None
        facing = p.facing
        out.append(p)
    return out


def _check_move(
    state: BattleState,
    u: UnitState,
    path: Sequence[Placement],
    assault_target: str | None = None,
    mover: Mover | None = None,
) -> int:
    """The cost of a legal move along ``path`` (refused otherwise); ``mover``: how the unit
    moves when not as its face says (a Scout move)."""
    if u.status.damage.immobilised and path:
        raise refuse(
            "immobilised",
            f"{u.uid} has a Locomotion Damage marker: no more Movement Actions [L673-L675]",
        )
    if mover is None:
        bonus = card_bonus(state, u.uid, MOVE_BONUS)  # a card's +X squares [L2135-L2136]
        mover = Mover(state.mover(u.uid), u.face.mv, bonus, assault_target=assault_target)
    check = check_path(state.board, mover, state.board_units(), path)
    if not check.ok:
        raise refuse(
            "illegal_move",
            "illegal move: " + "; ".join(check.problems),
            problems=list(check.problems),
        )
    assert check.reach is not None
    if check.reach.pushes:
        raise refuse(
            "not_supported",
            "a vehicle ending its move on infantry (pushing it) is not supported yet",
        )
    return check.cost


def _step_of(p: Placement) -> Step:
    return Step(p.anchor.x, p.anchor.y, p.facing.name)


# -- set-up and turns --------------------------------------------------------------------------


def _deploy_problems(d: Deploy, scenario: Scenario) -> list[str]:
    """What is wrong with a deployment entry on its own: facing, face."""
    problems: list[str] = []
    counter = scenario.catalogue.counters.get(d.unit.rsplit(":", 1)[-1])
    if d.facing not in Facing.__members__:
        problems.append(f"{d.unit}: facing must be one of {', '.join(Facing.__members__)}")
    elif counter is not None and counter.footprint == 4 and Facing[d.facing].diagonal:
        problems.append(f"{d.unit}: a 4-square vehicle never stands diagonally")
    if d.face is not None:
        if d.face not in {str(k) for k in FaceKind} or (
            counter is not None and counter.face(FaceKind(d.face)) is None
        ):
            problems.append(f"{d.unit}: no {d.face!r} face to deploy on")
        elif (
            counter is not None
            and FaceKind(d.face) is not counter.first_face.kind
            and not counter.first_face.has(Ability.STATE_CHANGE)
            and FaceKind(d.face) is not FaceKind.AMBUSH  # deployed in ambush [L1784-L1800]
        ):
            problems.append(
                f"{d.unit}: only a unit with Changement d'état deploys on another face "
                "[L1123-L1124]"
            )
    return problems


def _square_problems(state: BattleState, u: UnitState, taken: dict[Square, str]) -> list[str]:
    """Where a placed counter stands: its side's zone, squares its class may enter, free."""
    assert state.scenario is not None
    assert u.placement is not None
    problems: list[str] = []
    zone = state.scenario.side(u.side).deployment
    for sq in sorted(u.placement.squares):
        if sq not in zone:
            problems.append(f"{u.uid}: {tuple(sq)} is outside the {u.side} deployment zone")
        elif any(e.forbids(u.counter.unit_class) for e in state.board.elements_at(sq)):
            problems.append(f"{u.uid}: {tuple(sq)} is forbidden to it")
        elif taken.get(sq, u.uid) != u.uid:
            problems.append(f"{u.uid}: {tuple(sq)} is taken by {taken[sq]}")
        else:
            taken[sq] = u.uid
    return problems


def _bad_deployment(problems: list[str]) -> Refusal:
    return refuse("bad_deployment", "; ".join(problems), kind=RefusalKind.INPUT, problems=problems)


def _validate_setup(setup: BattleSetup) -> BattleState:
    """The set-up checked: its data, its seats, and the counters it deploys (the others are
    deployed by their players in the set-up stage)."""
    try:
        scenario = parse_setup(setup)
    except ProfileError as exc:
        raise refuse("bad_setup", str(exc), kind=RefusalKind.INPUT) from None
    sides = {s.id for s in scenario.sides}
    if set(setup.seats) != set(SEATS) or set(setup.seats.values()) != sides:
        raise refuse(
            "bad_seats",
            f"seats must map A and B to the scenario's sides {sorted(sides)}",
            kind=RefusalKind.INPUT,
        )
    problems = [p for d in setup.deployment for p in _deploy_problems(d, scenario)]
    if problems:
        raise _bad_deployment(problems)
    state = evolve(BattleState(), BattleCreated(setup))
    seen: set[str] = set()
    for d in setup.deployment:
        if d.unit not in state.units:
            problems.append(f"{d.unit}: no such unit in the scenario")
        elif d.unit in seen:
            problems.append(f"{d.unit}: deployed twice")
        seen.add(d.unit)
    taken: dict[Square, str] = {}
    for u in state.units.values():
        if u.placement is not None:
            problems += _square_problems(state, u, taken)
    if problems:
        raise _bad_deployment(problems)
    return state


def _deploy(out: _Out, command: DeployUnit, side: str) -> None:
    state = out.state
    _stage(state, Stage.SETUP)
    if side in state.deployed:
        raise refuse("deployment_ended", "you have ended your deployment")
    u = _own(state, command.unit, side)
    d = Deploy(command.unit, command.x, command.y, command.facing, command.face)
    assert state.scenario is not None
    problems = _deploy_problems(d, state.scenario)
    if problems:
        raise _bad_deployment(problems)
    step = Step(d.x, d.y, d.facing)
    moved = replace(u, placement=placement_of(step, u.counter.footprint))
    taken = {
        sq: other.uid
        for other in state.units.values()
        if other.uid != u.uid and other.placement is not None
        for sq in other.placement.squares
    }
    problems = _square_problems(state, moved, taken)
    if problems:
        raise _bad_deployment(problems)
    face = d.face if d.face is not None else str(u.counter.first_face.kind)
    event = UnitDeployed(u.uid, step, face)
    _carries_its_passengers(evolve(state, event), u.uid)
    out.emit(event)


def _carries_its_passengers(state: BattleState, transport_id: str) -> None:
    """A transport deployed again carries the units deployed aboard it (rulings 141) only
    as they could get in: never on its Flight face, and within the capacity of the face it
    now shows [L2017-L2032]; otherwise the deployment is refused (the passengers stay where
    they are until their owner deploys them elsewhere)."""
    passengers = state.passengers(transport_id)
    if not passengers:
        return
    transport = state.units[transport_id]
    names = ", ".join(p.uid for p in passengers)
    if transport.status.face is FaceKind.FLIGHT:
        raise refuse(
            "transport_flying",
            f"{transport_id} carries {names}: nobody rides a transport on its Flight face",
        )
    ability = transport.face.ability(Ability.TRANSPORT)
    aboard: list[Passenger] = []
    for p in passengers:
        me = Passenger(p.status.face is FaceKind.REDUCED, p.counter.character, p.counter.large)
        if (
            ability is None
            or not isinstance(ability.param, int)
            or not transport_has_room(ability.param, False, aboard, me)
        ):
            raise refuse(
                "transport_full",
                f"{transport_id} on that face has no room for {names}: deploy them first",
            )
        aboard.append(me)


def _deploy_aboard(out: _Out, command: DeployAboard, side: str) -> None:
    state = out.state
    _stage(state, Stage.SETUP)
    if side in state.deployed:
        raise refuse("deployment_ended", "you have ended your deployment")
    u = _own(state, command.unit, side)
    _own(state, command.transport, side)
    face = deploy_aboard_problem(state, u.uid, command.transport, command.face)
    out.emit(UnitDeployedAboard(u.uid, command.transport, str(face)))


def deploy_aboard_problem(
    state: BattleState, uid: str, transport_id: str, face_name: str | None = None
) -> FaceKind:
    """Check an infantry counter deployed aboard a transport of its side standing on the
    battlefield (in its zone, as deployed), within the transport's capacity as a unit getting
    in [L2017-L2032]: it starts the battle embarked (rulings 141). Not in ambush (an ambushed
    unit stands hidden on the battlefield [L1784-L1800]); not into a transport on its Flight
    face [L2030-L2032]. Returns the face it deploys on."""
    u = state.units[uid]
    assert state.scenario is not None
    problems = _deploy_problems(Deploy(uid, 0, 0, "N", face_name), state.scenario)
    if problems:
        raise _bad_deployment(problems)
    face = FaceKind(face_name) if face_name is not None else u.counter.first_face.kind
    if face is FaceKind.AMBUSH:
        raise refuse("ambush_aboard", "a unit in ambush is deployed on the battlefield [L1784]")
    if u.counter.unit_class is not UnitClass.INFANTRY:
        raise refuse("not_infantry", "only infantry gets into a transport [L2017-L2019]")
    transport = state.units[transport_id]
    if transport.uid == uid or transport.placement is None or not transport.alive:
        raise refuse("transport_not_deployed", f"deploy {transport_id} on the battlefield first")
    ability = transport.face.ability(Ability.TRANSPORT)
    if ability is None or not isinstance(ability.param, int):
        raise refuse("not_a_transport", f"{transport_id} has no Transport capacity")
    if transport.status.face is FaceKind.FLIGHT:
        raise refuse("transport_flying", "nobody gets into a transport on its Flight face")
    aboard = [
        Passenger(p.status.face is FaceKind.REDUCED, p.counter.character, p.counter.large)
        for p in state.passengers(transport_id)
        if p.uid != uid  # deployed again aboard: it does not count twice
    ]
    me = Passenger(face is FaceKind.REDUCED, u.counter.character, u.counter.large)
    if not transport_has_room(ability.param, False, aboard, me):
        raise refuse("transport_full", f"no room for {uid} in {transport_id}")
    return face


def _end_deployment(out: _Out, side: str) -> None:
    state = out.state
    _stage(state, Stage.SETUP)
    if side in state.deployed:
        raise refuse("deployment_ended", "you have ended your deployment")
    missing = sorted(u.uid for u in state.units.values() if u.side == side and not u.present)
    if missing:
        raise refuse(
            "not_deployed", f"deploy every counter first: {', '.join(missing)}", missing=missing
        )
    out.emit(DeploymentEnded(side))
    assert out.state.scenario is not None
    if out.state.deployed == {s.id for s in out.state.scenario.sides}:
        _after_deployment(out)


def _pool(state: BattleState, side: str) -> tuple[Token, ...]:
    """The tokens ``side`` takes this Order phase [L153-L160]: broken groups give nothing
    [L639-L647]; a counter's own Ordre / Ordre Personnel count on the face it shows now (an
    Ordre Personnel its option grants included: Machine Spirit, rulings 146), and not at all
    once it is destroyed [L1926-L1931]."""
    assert state.scenario is not None
    broken = frozenset(
        g.id.split(":", 1)[1] for g in state.groups.values() if g.side == side and g.broken
    )
    tokens = order_tokens(state.scenario.side(side).army, state.catalogue, broken)
    lost = sum(  # one count with the army's: gifts included (rulings 146, 151)
        unit_order_tokens(u.counter, u.gear)
        - (unit_order_tokens(u.counter, u.gear, u.status.face) if u.alive else 0)
        for u in state.units.values()
        if u.side == side and not _group_of(state, u.uid).broken
    )
    numbered = max(0, tokens.numbered - lost)
    return (
        tuple(Token(TokenKind.NUMBERED, n) for n in range(1, numbered + 1))
        + (Token(TokenKind.SPECIAL),) * tokens.special
        + (Token(TokenKind.BLUFF),) * tokens.bluff
    )


def _group_of(state: BattleState, uid: str) -> Group:
    return next(g for g in state.groups.values() if uid in g.units)


def _start_turn(out: _Out, number: int, initiative: str) -> None:
    state = out.state
    assert state.scenario is not None
    other = state.scenario.opponent(initiative)
    pools = {side: _pool(state, side) for side in (initiative, other)}
    counts = {
        side: Tokens(
            sum(t.kind is TokenKind.NUMBERED for t in pool),
            sum(t.kind is TokenKind.SPECIAL for t in pool),
            sum(t.kind is TokenKind.BLUFF for t in pool),
        )
        for side, pool in pools.items()
    }
    verdict = sudden_death(state.scenario, counts)
    if verdict is not None:
        out.emit(BattleEnded(verdict.winner, verdict.reason, dict(state.vp)))
        return
    out.emit(TurnStarted(number, initiative, other, pools))


def _scouts(state: BattleState, side: str | None = None) -> list[UnitState]:
    """Units that may still make their Scout move (on the battlefield, not in a transport)."""
    return [
        u
        for u in state.present_units()
        if u.face.has(Ability.SCOUT)
        and u.embarked_in is None
        and u.uid not in state.scouted
        and (side is None or u.side == side)
    ]


def _after_deployment(out: _Out) -> None:
    """Both sides deployed: the Scout moves, the Initiative side first (note §8 item 40), when
    some unit has Scout; then the first turn."""
    state = out.state
    assert state.scenario is not None
    first = state.scenario.first_initiative
    order = tuple(s for s in (first, state.scenario.opponent(first)) if _scouts(state, s))
    if order:
        out.emit(ScoutingStarted(order))
        return
    _start_turn(out, 1, first)


def scout_mover(state: BattleState, u: UnitState) -> Mover | None:
    """The free Movement Action of Scout (N): N squares, Difficult Ground ignored
    [L1944-L1953]; ``None`` without Scout."""
    ability = u.face.ability(Ability.SCOUT)
    if ability is None or not isinstance(ability.param, int):
        return None
    return Mover(state.mover(u.uid), ability.param, ignore_difficult=True)


def scout_end_problem(state: BattleState, end: Placement) -> str | None:
    """A Scout move may not end inside an objective nor on a square next to one
    [L1953-L1956]."""
    assert state.scenario is not None
    for o in state.scenario.objectives:
        near = set(o.squares) | {n for sq in o.squares for n in sq.neighbours()}
        if end.squares & near:
            return o.id
    return None


def _scouting_side(state: BattleState, side: str) -> None:
    if not state.scouting:
        raise refuse("not_scouting", "no Scout moves now")
    if state.scouting[0] != side:
        raise refuse("not_your_turn", "the other side makes its Scout moves first")


def _scout_move(out: _Out, command: ScoutMove, side: str) -> None:
    state = out.state
    _scouting_side(state, side)
    u = _present(_own(state, command.unit, side))
    mover = scout_mover(state, u)
    if mover is None:
        raise refuse("no_scout", f"{u.uid} has no Scout")
    if u.uid in state.scouted:
        raise refuse("scouted", f"{u.uid} has made its Scout move")
    if u.embarked_in is not None:  # (rulings 118)
        raise refuse(
            "embarked_scout", "a unit aboard a transport cannot use its own Scout [L1963-L1965]"
        )
    riders = sorted(p.uid for p in state.passengers(u.uid) if not p.face.has(Ability.SCOUT))
    if riders:
        raise refuse(
            "scout_passengers",
            f"a transport makes its Scout move carrying only units with Scout: {riders[0]} "
            "has none [L1960-L1963]",
        )
    path = _placements(u, command.path)
    cost = _check_move(state, u, path, mover=mover)
    objective = scout_end_problem(state, path[-1])
    if objective is not None:
        raise refuse(
            "near_objective",
            f"a Scout move may not end in or next to the objective {objective} [L1953-L1956]",
        )
    out.emit(ScoutMoved(u.uid, tuple(_step_of(p) for p in path), cost))


def _end_scouting(out: _Out, side: str) -> None:
    _scouting_side(out.state, side)
    out.emit(ScoutingEnded(side))
    if not out.state.scouting:
        assert out.state.scenario is not None
        _start_turn(out, 1, out.state.scenario.first_initiative)


def _create(out: _Out, command: CreateBattle) -> None:
    if out.state.scenario is not None:
        raise refuse("already_created", "the battle is already set up")
    _validate_setup(command.setup)
    out.emit(BattleCreated(command.setup))
    assert out.state.scenario is not None
    if out.state.stage is Stage.BATTLE:  # every counter deployed by the set-up
        _after_deployment(out)


def _place_orders(out: _Out, command: PlaceOrders, side: str, seat: str) -> None:
    state = out.state
    _phase(state, Phase.ORDER)
    assert state.turn is not None
    if side in state.turn.locked:
        raise refuse("orders_placed", "your tokens are already placed for this turn")
    if side in state.to_draw:
        raise refuse("draw_cards_first", "draw your Action cards first (draw_cards)")
    if side in state.to_maintain:
        raise refuse("maintain_first", "maintain or drop your persistent powers first")
    pool = list(state.turn.pools[side])
    units: set[str] = set()
    placed: list[SecretOrder] = []
    for spec in command.orders:
        u = _present(_own(state, spec.unit, side))
        if spec.unit in units:
            raise refuse("one_token_per_unit", f"{spec.unit} has two tokens [L164-L170]")
        units.add(spec.unit)
        number = spec.number if spec.kind is TokenKind.NUMBERED else 0
        token = Token(spec.kind, number)
        if token not in pool:
            raise refuse("no_such_token", f"you have no {token} token left to place")
        pool.remove(token)
        if not spec.nonce or len(spec.nonce) > MAX_NONCE:
            raise refuse(
                "bad_nonce", "each token needs a nonce (1-128 characters)", kind=RefusalKind.INPUT
            )
        placed.append(SecretOrder(u.uid, token, spec.nonce))
    numbers = sorted(o.token.number for o in placed if o.token.kind is TokenKind.NUMBERED)
    if numbers != list(range(1, len(numbers) + 1)):
        raise refuse(
            "token_gap",
            "numbered tokens are placed from 1 upwards: you cannot keep a lower one back",
        )
    free = [u for u in state.present_units() if u.side == side and u.uid not in units]
    if free and any(t.kind is TokenKind.NUMBERED for t in pool):
        raise refuse(
            "tokens_left",
            f"you still hold numbered tokens and {len(free)} unit(s) have none",
        )
    if not any(o.token.kind is not TokenKind.BLUFF for o in placed):
        raise refuse("no_order", "place at least one numbered or Special token")
    personal = sorted(
        u.uid
        for u in state.present_units()
        if u.side == side and u.face.has(Ability.PERSONAL_ORDER) and u.uid not in units
    )
    if personal:
        raise refuse(
            "personal_order",
            f"{', '.join(personal)} must get an Order token every turn [L1938-L1942]",
        )
    out.emit(OrdersPlaced(side, tuple(placed)), audience=(seat,))
    digests = {o.unit: commitment(state.turn.turn, o.unit, o.token, o.nonce) for o in placed}
    out.emit(OrdersCommitted(side, digests))


# -- activation ---------------------------------------------------------------------------------


def _reveal(out: _Out, uid: str, side: str) -> UnitState:
    """Reveal the token on ``uid`` (it must be the one due, or a Special token)."""
    state = out.state
    _phase(state, Phase.ACTIVATION)
    assert state.turn is not None
    u = _own(state, uid, side)
    order = state.secret.get(side, {}).get(uid)
    if order is None or uid in state.turn.revealed[side]:
        raise refuse("no_order", f"{uid} has no face-down token to play")
    if order.token.kind is TokenKind.BLUFF:
        raise refuse("bluff", "a Bluff token never activates a unit [L172-L176]")
    if order.token.kind is TokenKind.NUMBERED:
        now = due(state.turn)
        if now is None or now[0] != side:
            raise refuse("not_your_turn", "it is your opponent's activation")
        if now[1] != order.token.number:
            raise refuse("not_due", f"your token {now[1]} is due, not the one on {uid}", due=now[1])
    try:
        out.emit(OrderRevealed(side, uid, order.token, order.nonce))
    except TurnError as exc:
        raise refuse("bad_reveal", str(exc)) from None
    if u.present and uid not in out.state.activated:
        auspex_spots(out, uid)  # [L1776-L1780]
        unmask_to_shoot(out, uid, out.command)  # [L1793-L1795]
        u = out.state.units[uid]
    return u


def _able(u: UnitState, state: BattleState) -> None:
    if not u.present:
        raise refuse(
            "unit_gone", f"{u.uid} is destroyed: its token is revealed with no effect (hold)"
        )
    if u.uid in state.activated:
        raise refuse("activated", f"{u.uid} has an Activated marker: its token does nothing (hold)")


def _after_activation(out: _Out) -> None:
    state = out.state
    if (
        state.stage is not Stage.BATTLE
        or state.pending is not None
        or state.again is not None
        or state.placing is not None
    ):
        return
    assert state.turn is not None
    specials_left = any(
        o.token.kind is TokenKind.SPECIAL and o.unit not in state.turn.revealed[side]
        for side, orders in state.secret.items()
        for o in orders.values()
    )
    if due(state.turn) is None and not specials_left:
        out.emit(ActivationEnded())


_STATES = (FaceKind.ACTIVE, FaceKind.INACTIVE)


def _flip(out: _Out, uid: str) -> None:
    """Changement d'état: Active to Inactive or back, once in a Movement Action, at its start
    or its end, even with MV X [L1108-L1127]."""
    other = _flip_problem(out.state.units[uid])
    out.emit(UnitFlipped(uid, str(other)))


def _flip_problem(u: UnitState) -> FaceKind:
    """The face Changement d'état turns ``u`` to; refused without it."""
    if not u.face.has(Ability.STATE_CHANGE) or u.status.face not in _STATES:
        raise refuse("no_state_change", f"{u.uid} has no Changement d'état on this face")
    other = _STATES[1 - _STATES.index(u.status.face)]
    if u.counter.face(other) is None:
        raise refuse("no_state_change", f"{u.uid} has no {other} face")
    return other


def _move(out: _Out, command: Move, side: str) -> None:
    u = _reveal(out, command.unit, side)
    _able(u, out.state)
    if command.flip not in (None, "start", "end"):
        raise refuse("bad_flip", 'flip is "start" or "end"', kind=RefusalKind.INPUT)
    if command.flip == "start":
        _flip(out, u.uid)
        u = out.state.units[u.uid]
    if command.flip == "end":
        _flip_problem(u)  # before any die, as getting into a transport (rulings 92)
    if command.embark is not None:
        # checked where the move ends before any die (a Tir en Mouvement, the other side's En
        # Alerte): refused after them, it would tell the dice or stall the En Alerte answer
        end = out.state
        if command.path:
            path = _placements(u, command.path)
            _check_move(out.state, u, path)
            end = evolve(end, UnitMoved(u.uid, tuple(_step_of(q) for q in path), 0))
        _embark_problem(end, u.uid, command.embark)
    if command.demolish is not None:  # Démolisseur: checked where the move ends, before any die
        _demolisher_problem(out.state, u, command.demolish, command.path, command.embark)
    moving_fire = (
        command.fire_at is not None
        or command.flame is not None
        or bool(command.burst)
        or bool(command.weapons)
    )
    if command.path or (command.flip is None and command.embark is None) or moving_fire:
        if _declared(out, u, command, side):
            return  # the other side's En Alerte first
        _move_along(out, u, command)
    if command.flip == "end":
        _flip(out, u.uid)
    if command.embark is not None:
        _embark(out, u.uid, command.embark)
    if command.demolish is not None:
        _demolisher(out, u.uid, command.demolish)


def _demolisher_problem(
    state: BattleState, u: UnitState, structure: str, path: Sequence[Step], embark: str | None
) -> None:
    """Démolisseur [L1746-L1753]: the unit has it, does not get into a transport, and its
    Movement Action ends next to (or in) the structure (rulings 104)."""
    if destruction_dice(u.face.ability(Ability.DEMOLISHER)) == 0:
        raise refuse("no_demolisher", f"{u.uid} has no Démolisseur")
    if embark is not None:
        raise refuse("demolish_embark", "a unit getting into a transport demolishes nothing")
    element = structure_of(state, structure)
    if element is None:
        raise refuse("no_structure", f"there is no structure {structure!r} standing")
    end = _placements(u, path)[-1] if path else u.placement
    if end is None:
        raise refuse("not_on_board", f"{u.uid} is not on the battlefield")
    near = {n for sq in end.squares for n in (sq, *sq.neighbours())}
    if not near & element.squares:
        raise refuse("not_adjacent", f"the move does not end next to {structure}")


def _demolisher(out: _Out, uid: str, structure: str) -> None:
    """The Démolisseur's dice at the end of its Movement Action (a unit the move cost its
    life, or whose structure fell meanwhile, rolls nothing)."""
    u = out.state.units[uid]
    element = structure_of(out.state, structure)
    if not u.alive or u.placement is None or element is None:
        return
    out.emit(Demolished(uid, structure, "demolisher"))
    roll_destruction(out, element, destruction_dice(u.face.ability(Ability.DEMOLISHER)), uid)


def _destruction_after(out: _Out, u: UnitState, target: UnitState, dice: int) -> None:
    """Destruction (N): an attack at a unit inside a structure, once resolved, deals the
    structure its dice [L1174-L1194] (rulings 104)."""
    if dice == 0:
        return
    element = structure_holding(out.state, target)
    if element is not None:
        roll_destruction(out, element, dice, u.uid)


def _demolish(out: _Out, command: Demolish, side: str) -> None:
    """Destruction: the unit's Shooting Action at a structure itself: its dice at once
    [L1183-L1194]; sight, arc and range as a shot's, only vehicles in the way (rulings 104)."""
    u = _reveal(out, command.unit, side)
    _able(u, out.state)
    state = out.state
    _not_silenced(state, u)
    dice = destruction_dice(u.face.ability(Ability.DESTRUCTION))
    if dice == 0:
        raise refuse("no_destruction", f"{u.uid} has no Destruction")
    element = structure_of(state, command.structure)
    if element is None:
        raise refuse("no_structure", f"there is no structure {command.structure!r} standing")
    origin = _shooting_from(state, u)
    arc_ref = u.face.ability(Ability.LIMITED_ARC)
    if arc_ref is not None:
        arc = Arc.NARROW if str(arc_ref.param) == "90" else Arc.HALF
        if not any(
            in_arc(o, origin.facing, sq, arc) for o in origin.squares for sq in element.squares
        ):
            raise refuse("out_of_arc", f"{command.structure} is outside the arc of {u.uid}")
    range_ref = u.face.ability(Ability.LIMITED_RANGE)
    reach = range_ref.param if range_ref is not None else None
    if isinstance(reach, int) and distance(origin.squares, element.squares) > reach:
        raise refuse("out_of_range", f"{command.structure} is beyond {reach} squares")
    los = best_line_of_sight(
        state.board,
        origin.squares,
        element.squares,
        shooter_class=u.counter.unit_class,
        target_class=UnitClass.HEAVY_VEHICLE,  # only vehicles stand in the way
        blockers=_blockers(state, {u.uid, u.embarked_in or ""}),
        embarked_shooter=u.embarked_in is not None,
    )
    if not los.can_shoot:
        raise refuse("no_line_of_sight", f"no line of sight to {command.structure}")
    out.emit(Demolished(u.uid, command.structure, "shot"))
    roll_destruction(out, element, dice, u.uid)


def overwatch_steps(
    state: BattleState, u: UnitState, path: Sequence[Placement]
) -> dict[str, list[int]]:
    """The enemy units that may fire En Alerte at ``u`` along ``path``, each with the steps
    after which it could (1 to the path's length): units with En Alerte on the face they show,
    not activated this turn (no token revealed, no Activated marker), that could shoot ``u``
    where it stands then [L1202-L1212]."""
    watchers = [
        w
        for w in state.present_units()
        if w.side != u.side
        and has_overwatch(w)
        and w.uid not in state.activated
        and w.uid not in state.acted
    ]
    out: dict[str, list[int]] = {}
    if not watchers:
        return out
    steps = tuple(_step_of(p) for p in path)
    seen = spot_step(state, u.uid, steps)  # an ambushed mover is shot once spotted
    for k in range(1, len(steps) + 1):
        probe = evolve(state, UnitMoved(u.uid, steps[:k], 0))
        if seen is not None and k >= seen:
            probe = as_spotted(probe, u.uid)
        for w in watchers:
            if not watch_shots(probe, probe.units[w.uid], probe.units[u.uid], False):
                continue
            out.setdefault(w.uid, []).append(k)
    return out


def has_overwatch(w: UnitState) -> bool:
    """En Alerte on the face the unit shows, or on one of a heavy vehicle's working weapons."""
    return w.face.has(Ability.OVERWATCH) or any(
        weapon.ability(Ability.OVERWATCH) is not None for weapon in working_weapons(w)
    )


def watch_shots(
    state: BattleState, w: UnitState, target: UnitState, suppression: bool
) -> list[WeaponShot | None]:
    """What an En Alerte shot of ``w`` at ``target`` fires (empty: it cannot): the unit's
    shot (``None``), or a heavy vehicle's working weapons that can shoot it, those with En
    Alerte on the weapon or all of them when the face has it: one Shooting Action
    (rulings 103)."""
    if not w.face.weapons:
        try:
            plan_shot(state, w, target, suppression)
        except Refusal:
            return []
        return [None]
    shots: list[WeaponShot | None] = []
    for weapon in working_weapons(w):
        if not (w.face.has(Ability.OVERWATCH) or weapon.ability(Ability.OVERWATCH)):
            continue
        try:
            plan_shot(state, w, target, suppression, weapon)
        except Refusal:
            continue
        shots.append(WeaponShot(weapon.name, target.uid, suppression))
    return shots


def _check_fire(state: BattleState, u: UnitState, command: Move, path: Sequence[Placement]) -> None:
    """A Tir en Mouvement (``fire_at``) or a flamer (``flame``) asked with a move, checked
    where it is fired before any die."""
    if command.fire_at is not None and command.flame is not None:
        raise refuse("fire_or_flame", "a move fires once: fire_at or flame", kind=RefusalKind.INPUT)
    if command.burst and (command.fire_at is not None or command.flame is not None):
        raise refuse("fire_or_burst", "a move fires once: a Rafale (burst) or fire_at",
                     kind=RefusalKind.INPUT)  # fmt: skip
    if command.weapons and (
        command.fire_at is not None or command.flame is not None or command.burst
    ):
        raise refuse("fire_or_weapons", "a move fires once: its weapons or fire_at",
                     kind=RefusalKind.INPUT)  # fmt: skip
    if command.fire_second is not None and command.fire_at is None:
        raise refuse("no_target", "fire_second needs fire_at", kind=RefusalKind.INPUT)
    if not _fires_on_move(command):
        if command.fire_after is not None:
            raise refuse("no_target", "fire_after needs fire_at", kind=RefusalKind.INPUT)
        return
    if command.weapons and not u.face.weapons:
        raise refuse("no_weapons", f"{u.uid} lists no weapons: it fires with fire_at")
    if command.fire_at is not None or command.burst or command.weapons:
        _on_move_guns(u)
    after = len(path) if command.fire_after is None else command.fire_after
    if not 0 <= after <= len(path):
        raise refuse(
            "bad_fire_after", f"fire_after is 0 to {len(path)} steps", kind=RefusalKind.INPUT
        )
    steps = tuple(_step_of(p) for p in path)
    probe = evolve(state, UnitMoved(u.uid, steps[:after], 0)) if after else state
    if command.flame is not None:
        plan_flame(probe, unmasked(probe.units[u.uid]), command.flame)
    elif command.burst:  # Rafale on the move (rulings 123)
        _burst_checks(probe, unmasked(probe.units[u.uid]), command.burst, moving=True)
    elif command.weapons:  # a vehicle's weapons on the move (rulings 140)
        mover = unmasked(probe.units[u.uid])
        _vehicle_checks(probe, mover, command.weapons, _move_penalties(mover))
    else:
        assert command.fire_at is not None
        mover = unmasked(probe.units[u.uid])
        _moving_shots(probe, mover, command.fire_at)
        if command.fire_second is not None and mover.face.weapons:  # rulings 140
            pair = _vehicle_pair(probe, mover, command.fire_at, command.fire_second)
            _vehicle_checks(probe, mover, pair, _move_penalties(mover))
        elif command.fire_second is not None:  # Double Tir on the move (rulings 123)
            _double_checks(probe, mover, command.fire_at, command.fire_second, moving=True)


def _fires_on_move(command: Move | PendingMove) -> bool:
    """Whether the move fires during it: a Tir en Mouvement, a Rafale, a vehicle's weapons or
    a flamer."""
    return (
        command.fire_at is not None
        or command.flame is not None
        or bool(command.burst)
        or bool(command.weapons)
    )


def _vehicle_pair(state: BattleState, u: UnitState, first: str, second: str) -> list[WeaponShot]:
    """``fire_at`` and ``fire_second`` of a heavy vehicle on the move (rulings 140): each Tir
    en Mouvement weapon that can shoot ``first`` does, then each of those with Double Tir (on
    the weapon or the face) that can shoot ``second`` fires its second shot at it."""
    if first == second:
        raise refuse("same_target", "Double Tir never shoots the same target twice [L1198-L1199]")
    shots = [WeaponShot(w.name, first) for w, _ in _moving_shots(state, u, first) if w]
    doubles = [w for w, _ in _on_move_guns(u) if w is not None and shots_of(u, w) == 2]
    if not doubles:
        raise refuse("no_double_shot", f"{u.uid} has no Tir en Mouvement weapon with Double Tir")
    target = _unit(state, second)
    first_refusal: Refusal | None = None
    seconds: list[WeaponShot] = []
    for w in doubles:
        try:
            plan_shot(state, u, target, False, w)
        except Refusal as exc:
            first_refusal = first_refusal or exc
            continue
        seconds.append(WeaponShot(w.name, second))
    if not seconds:
        assert first_refusal is not None
        raise first_refusal
    return shots + seconds


def _move_penalties(u: UnitState) -> dict[str, int]:
    """A heavy vehicle's weapons that fire on the move, each with its Tir en Mouvement
    penalty (rulings 140)."""
    return {w.name: pen for w, pen in _on_move_guns(u) if w is not None}


def _on_move_guns(u: UnitState) -> list[tuple[Weapon | None, int]]:
    """What a unit fires during its move, each with its Tir en Mouvement penalty (taken off
    the CV [L1435-L1436]): the unit itself, or every working weapon of a heavy vehicle with
    Tir en Mouvement [L572-L577] (the vehicle's face ability counting for all of them)."""

    def penalty(ref: AbilityRef | None) -> int:
        return abs(ref.param) if ref is not None and isinstance(ref.param, int) else 0

    if not u.face.weapons:
        ref = u.face.ability(Ability.SHOOT_ON_MOVE)
        if ref is None:
            raise refuse(
                "no_shoot_on_move", f"{u.uid} has no Tir en Mouvement: it moves or shoots [L432]"
            )
        return [(None, penalty(ref))]
    guns: list[tuple[Weapon | None, int]] = [
        (w, penalty(w.ability(Ability.SHOOT_ON_MOVE) or u.face.ability(Ability.SHOOT_ON_MOVE)))
        for w in working_weapons(u)
        if w.has(Ability.SHOOT_ON_MOVE) or u.face.has(Ability.SHOOT_ON_MOVE)
    ]
    if not guns:
        raise refuse(
            "no_shoot_on_move",
            f"{u.uid} has no working weapon with Tir en Mouvement: it moves or shoots [L572-L577]",
        )
    return guns


def _moving_shots(
    state: BattleState, u: UnitState, target_id: str
) -> list[tuple[Weapon | None, int]]:
    """The shots of a Tir en Mouvement at ``target_id`` from where the unit stands: a heavy
    vehicle fires each of its Tir en Mouvement weapons that can (rulings); refused when none
    can."""
    target = _unit(state, target_id)
    ready: list[tuple[Weapon | None, int]] = []
    first: Refusal | None = None
    for gun, pen in _on_move_guns(u):
        try:
            plan_shot(state, u, target, False, gun)
        except Refusal as exc:
            first = first or exc
            continue
        ready.append((gun, pen))
    if not ready:
        assert first is not None
        raise first
    return ready


def _fire_on_move(
    out: _Out,
    u: UnitState,
    target_id: str | None,
    second: str | None = None,
    burst: tuple[BurstShare, ...] = (),
    weapons: tuple[WeaponShot, ...] = (),
    watched: bool = False,
) -> None:
    """The move's Tir en Mouvement: at ``target_id`` (and ``second`` with Double Tir), or a
    Rafale's ``burst`` shares, each with the Tir en Mouvement penalty (rulings 123); or a
    heavy vehicle's ``weapons``, one Shooting Action of its Tir en Mouvement weapons, each
    with its own penalty (rulings 140). After an En Alerte shot (``watched``) the named
    weapons it destroyed (or the face it flipped to no longer shows) are left out: only
    their shots are lost (rulings 122, 140)."""
    if weapons:
        shots = list(weapons)
        if watched:
            shots = [s for s in shots if _working(u, s.weapon)]
            if not shots:
                return  # every weapon named was lost to the En Alerte shot
        _vehicle_shots(out, u, shots, _move_penalties(u))
        return
    if burst:
        total = _burst_checks(out.state, u, burst, moving=True)
        out.emit(BurstDeclared(u.uid, total, burst))
        for s in burst:  # each share is part of the CV the penalty already came off
            mover = out.state.units[u.uid]
            if mover.alive and out.state.units[s.target].alive:
                _fire(out, mover, s.target, False, share=s.cv)
        return
    assert target_id is not None
    if second is not None and u.face.weapons:  # a vehicle's Double Tir weapons (rulings 140)
        _vehicle_shots(out, u, _vehicle_pair(out.state, u, target_id, second), _move_penalties(u))
        return
    _fire_once_on_move(out, u, target_id)
    if second is not None:
        mover = out.state.units[u.uid]
        if mover.alive and out.state.units[second].alive:
            _fire(out, mover, second, False, _on_move_guns(mover)[0][1])


def _fire_once_on_move(out: _Out, u: UnitState, target_id: str) -> None:
    for gun, pen in _moving_shots(out.state, u, target_id):
        mover = out.state.units[u.uid]
        if not mover.alive or not out.state.units[target_id].alive:
            return
        _fire(out, mover, target_id, False, pen, weapon=gun)


def _declared(out: _Out, u: UnitState, command: Move, side: str) -> bool:
    """When an enemy unit could fire En Alerte along the move, the move is declared and waits
    for that side's answer (``True``); otherwise it is made at once (``False``)."""
    state = out.state
    path = _placements(u, command.path)
    _check_move(state, u, path)
    if not overwatch_steps(state, u, path):
        return False
    _check_fire(state, u, command, path)
    assert state.scenario is not None
    out.emit(
        MoveDeclared(
            u.uid,
            side,
            state.scenario.opponent(side),
            tuple(_step_of(p) for p in path),
            command.fire_at,
            command.fire_after,
            "end" if command.flip == "end" else None,
            command.embark,
            command.demolish,
            command.flame,
            fire_second=command.fire_second,
            burst=command.burst,
            weapons=command.weapons,
        )
    )
    return True


def _waiting(state: BattleState, side: str) -> PendingMove:
    pending = state.pending
    if pending is None:
        raise refuse("no_move_declared", "no move waits for an En Alerte")
    if side != pending.reactor:
        raise refuse("not_your_turn", "your opponent decides on its En Alerte")
    return pending


def _overwatch(out: _Out, command: Overwatch, side: str) -> None:
    pending = _waiting(out.state, side)
    w = _present(_own(out.state, command.unit, side))
    steps = overwatch_steps(
        out.state,
        out.state.units[pending.unit],
        _placements(out.state.units[pending.unit], pending.path),
    )
    if not has_overwatch(w):
        raise refuse("no_overwatch", f"{w.uid} has no En Alerte")
    if w.uid in out.state.activated or w.uid in out.state.acted:
        raise refuse("activated", f"{w.uid} was activated this turn: no En Alerte [L1203]")
    if command.after not in steps.get(w.uid, ()):
        raise refuse(
            "no_shot_there",
            f"{w.uid} cannot shoot {pending.unit} after step {command.after}",
            steps=list(steps.get(w.uid, ())),
        )
    out.emit(OverwatchAnswered(side, w.uid, command.after))
    unmask(out, w.uid, SHOOTS)  # an ambushed watcher flips to shoot [L1793-L1795]
    _resolve(out, pending, (w.uid, command.after, command.suppression))


def _pass_overwatch(out: _Out, side: str) -> None:
    pending = _waiting(out.state, side)
    out.emit(OverwatchAnswered(side))
    _resolve(out, pending, None)


def _resolve(out: _Out, p: PendingMove, watch: tuple[str, int, bool] | None) -> None:
    """The declared move made: its steps, the En Alerte shot after its step, the mover's own
    Tir en Mouvement (first when both come after the same step), then its end flip and its
    embarking. The mover does not stop for a step lost and keeps the MV it moved with; a
    mover the shot destroyed goes no further [L1209-L1212]; a Tir en Mouvement the shot made
    impossible is lost."""
    u = out.state.units[p.unit]
    path = _placements(u, p.path)
    steps = tuple(_step_of(q) for q in path)
    start = out.state
    cost = {len(path): _check_move(start, u, path), 0: 0}
    cuts: list[tuple[int, int]] = []
    if _fires_on_move(p):
        cuts.append((len(path) if p.fire_after is None else p.fire_after, 0))
    if watch is not None:
        cuts.append((watch[1], 1))
    for at, _ in cuts:
        if at not in cost:
            cost[at] = _check_move(start, u, path[:at])
    done = 0
    watched = False
    for at, what in sorted(cuts):
        if at > done:
            out.emit(UnitMoved(u.uid, steps[done:at], cost[at] - cost[done]))
            done = at
        if what == 1 and watch is not None:
            before = len(out.state.units[u.uid].status.damage.markers)
            watcher = out.state.units[watch[0]]
            if watcher.face.weapons:  # every weapon that can, one Shooting Action
                fired = watch_shots(out.state, watcher, out.state.units[u.uid], watch[2])
                _vehicle_shots(out, watcher, [s for s in fired if s is not None])
            else:
                _fire(out, watcher, u.uid, watch[2])
            out.emit(UnitsActivated((watch[0],)))
            watched = True
            if not out.state.units[u.uid].alive or _stopped(out.state.units[u.uid], before):
                _after_activation(out)
                return
        elif p.flame is not None:
            unmask(out, u.uid, SHOOTS)
            try:
                _flame_from(out, out.state.units[u.uid], p.flame, FLAMER_MOVING_PENALTY)
            except Refusal:
                if not watched:
                    raise
        elif p.fire_at is not None or p.burst or p.weapons:
            unmask(out, u.uid, SHOOTS)
            try:
                _fire_on_move(
                    out,
                    out.state.units[u.uid],
                    p.fire_at,
                    p.fire_second,
                    p.burst,
                    p.weapons,
                    watched,
                )
            except Refusal:
                if not watched:
                    raise
    if done < len(path):
        out.emit(UnitMoved(u.uid, steps[done:], cost[len(path)] - cost[done]))
    if p.assault is not None:  # an assault's move (rulings 122)
        _assault_after_watch(out, p, path[-1])
    if p.flip == "end":
        try:
            _flip_problem(out.state.units[u.uid])
        except Refusal:
            pass  # the En Alerte shot reduced it: no face to flip to, and no refusal now
        else:
            _flip(out, u.uid)
    if p.embark is not None:
        _embark(out, u.uid, p.embark)
    if p.demolish is not None:
        _demolisher(out, u.uid, p.demolish)
    _after_activation(out)


def _assault_after_watch(out: _Out, p: PendingMove, start: Placement) -> None:
    """The assault of a move the other side's En Alerte shot at: made when the attacker still
    stands with Assaut and the defender is still there; a Tir en Mouvement or an En Alerte
    that made it impossible drops it (rulings 122) [L1517-L1525]."""
    assert p.assault is not None
    u, target = out.state.units[p.unit], out.state.units[p.assault]
    if not (u.alive and u.face.has(Ability.ASSAULT)) or not target.alive:
        return
    if target.placement is None or u.face.cv_against(target.counter.unit_class) is None:
        return
    entry = Placement(target.placement.anchor, start.facing, start.footprint)
    _fight(out, u.uid, target.uid, p.supporters, start, entry)


def _stopped(u: UnitState, before: int) -> bool:
    """A Locomotion or Hull marker placed during its move stops a heavy vehicle at once
    [L673-L681] (it beats En Alerte's "the target does not stop", rulings)."""
    new = u.status.damage.markers[before:]
    return any(m in (DamageMarker.LOCOMOTION, DamageMarker.HULL) for m in new)


def _embark(out: _Out, uid: str, transport_id: str) -> None:
    """Infantry gets into a friendly transport next to it at the end of its move."""
    _embark_problem(out.state, uid, transport_id)
    out.emit(UnitEmbarked(uid, transport_id))


def _embark_problem(state: BattleState, uid: str, transport_id: str) -> None:
    """Refuse getting into a transport: infantry next to a friendly transport at the end of
    its move, capacity N, reduced faces and Characters count 1, the others 2; Large units only
    in a red one (never, here: the data has no colour) [L2017-L2032]."""
    u = state.units[uid]
    if u.counter.unit_class is not UnitClass.INFANTRY:
        raise refuse("not_infantry", "only infantry gets into a transport [L2017-L2019]")
    if u.embarked_in is not None:
        raise refuse("already_aboard", f"{uid} is already in {u.embarked_in}")
    transport = _standing(_own(state, transport_id, u.side))
    ability = transport.face.ability(Ability.TRANSPORT)
    if ability is None or not isinstance(ability.param, int):
        raise refuse("not_a_transport", f"{transport_id} has no Transport capacity")
    assert u.placement is not None
    if not can_embark(state.mover(transport_id), u.placement.anchor):
        raise refuse("not_adjacent", f"{uid} must end its move next to {transport_id}")
    aboard = [
        Passenger(p.status.face is FaceKind.REDUCED, p.counter.character, p.counter.large)
        for p in state.passengers(transport_id)
    ]
    me = Passenger(u.status.face is FaceKind.REDUCED, u.counter.character, u.counter.large)
    if not transport_has_room(ability.param, False, aboard, me):
        raise refuse("transport_full", f"no room for {uid} in {transport_id}")


OUT_OF_WRECK = "out of the wreck"


def _wreck_squares(state: BattleState, transport: UnitState, p: UnitState) -> list[Step]:
    """The squares next to the wreck where passenger ``p`` may be set, in reading order: on
    the battlefield, allowed, free, out of every enemy zone of control [L2058-L2066]."""
    assert transport.placement is not None
    wreck = transport.placement.squares
    around = sorted({n for sq in wreck for n in sq.neighbours()} - wreck, key=lambda q: (q.y, q.x))
    zones = [
        zone_of_control(state.board, e.board_unit())
        for e in state.on_board()
        if e.side != p.side and e.counter.unit_class is UnitClass.INFANTRY and not e.suppressed
    ]
    return [
        Step(sq.x, sq.y, None)
        for sq in around
        if state.board.on_board(sq)
        and not any(e.forbids(p.counter.unit_class) for e in state.board.elements_at(sq))
        and _free(state, sq, set())
        and not any(sq in z for z in zones)
    ]


def _may_await_square(state: BattleState) -> bool:
    """The battle may wait for an owner's square (rulings 142): in an activation, with no
    other square, reroll or power awaited."""
    return (
        state.stage is Stage.BATTLE
        and state.turn is not None
        and state.turn.phase is Phase.ACTIVATION
        and state.placing is None
        and state.reroll is None
        and state.again is None
    )


def _out_of_the_wreck(out: _Out, uid: str) -> None:
    """A passenger set out of the wreck: its Inactive face if it has one, 1 Suppressed."""
    p = out.state.units[uid]
    if p.counter.face(FaceKind.INACTIVE) is not None and p.status.face is not FaceKind.INACTIVE:
        out.emit(UnitFlipped(p.uid, str(FaceKind.INACTIVE)))
    out.emit(SuppressedPlaced(p.uid, 1))


def _disembark_all(out: _Out, transport: UnitState) -> None:
    """A destroyed transport: its passengers take no step; each is set on a free square next
    to the wreck, on its Inactive face if it has one, with 1 Suppressed marker; one that
    cannot be placed out of every enemy zone of control is destroyed [L2058-L2066] (note §8
    item 35). With several squares open, the passenger's owner chooses (rulings 143): the
    battle waits for its ``choose_square`` (the first square in reading order offered as the
    default), then sets the next passenger. Called again after each choice."""
    for p in out.state.passengers(transport.uid):
        spots = _wreck_squares(out.state, transport, p)
        if not spots:
            out.emit(StepsTaken(p.uid, 0, 0, str(p.status.face), p.status.hit_points, False, True))
            continue
        if len(spots) > 1 and _may_await_square(out.state):
            anchor = transport.placement.anchor if transport.placement is not None else spots[0]
            entry = Step(anchor.x, anchor.y, None)
            out.emit(
                SquareAwaited(p.uid, p.side, OUT_OF_WRECK, tuple(spots), transport.uid, entry, "")
            )
            return
        out.emit(ForcedMove(p.uid, spots[0], OUT_OF_WRECK))
        _out_of_the_wreck(out, p.uid)


def _move_along(out: _Out, u: UnitState, command: Move) -> None:
    path = _placements(u, command.path)
    cost = _check_move(out.state, u, path)
    steps = tuple(_step_of(p) for p in path)
    _check_fire(out.state, u, command, path)  # before any die (a flame or a shot on the move)
    if not _fires_on_move(command):
        out.emit(UnitMoved(u.uid, steps, cost))
        return
    after = len(path) if command.fire_after is None else command.fire_after
    # the move's cost is known; it is logged in two parts around the shot
    first = _check_move(out.state, u, path[:after]) if after else 0
    if after:
        out.emit(UnitMoved(u.uid, steps[:after], first))
    unmask(out, u.uid, SHOOTS)  # an ambushed unit flips to shoot [L1793-L1795]
    if command.flame is not None:
        _flame_from(out, out.state.units[u.uid], command.flame, FLAMER_MOVING_PENALTY)
    else:
        unit = out.state.units[u.uid]
        _fire_on_move(
            out, unit, command.fire_at, command.fire_second, command.burst, command.weapons
        )
    if after < len(path):
        out.emit(UnitMoved(u.uid, steps[after:], cost - first))


def _hold(out: _Out, command: Hold, side: str) -> None:
    _reveal(out, command.unit, side)


def _blockers(state: BattleState, leave_out: set[str]) -> list[Blocker]:
    return ambush_blockers(state, leave_out)  # an ambushed unit blocks nothing [L1790]


@dataclass(frozen=True, slots=True)
class ShotPlan:
    """A shot as the pipeline sees it, before the dice (also shown to a player as odds)."""

    request: OddsRequest
    sight: str
    dv: int
    side: str = ""  # a heavy vehicle target: "front", "rear" or "side"
    weapon: str | None = None
    piercing: bool = False  # Perforant: +1 to the location roll, no armour save
    terrifying: bool = False  # Tir Effrayant


def _shooting_from(state: BattleState, shooter: UnitState) -> Placement:
    """Where a shot starts: the shooter's squares, or its transport's [L2040-L2046]."""
    if shooter.embarked_in is not None:
        if shooter.counter.role is Role.HEAVY_WEAPON and not shooter.face.has(
            Ability.SHOOT_ON_MOVE
        ):
            raise refuse(
                "heavy_weapon_aboard",
                "heavy-weapon infantry shoots from a transport only with Tir en Mouvement "
                "[L2043-L2046]",
            )
        placement = state.units[shooter.embarked_in].placement
    else:
        placement = shooter.placement
    assert placement is not None
    return placement


@dataclass(frozen=True, slots=True)
class _Arms:
    """What a shot fires with: the unit's face, or one weapon of a heavy vehicle (its own CVs,
    its own abilities and those printed on the face, rulings)."""

    cv: dict[UnitClass, int | None]
    abilities: tuple[AbilityRef, ...]
    weapon: str | None = None

    def ability(self, ability: Ability) -> AbilityRef | None:
        return next((a for a in self.abilities if a.ability is ability), None)

    def has(self, ability: Ability) -> bool:
        return self.ability(ability) is not None


def _arms(shooter: UnitState, weapon: Weapon | None) -> _Arms:
    face = shooter.face
    if weapon is None:
        if face.weapons:
            raise refuse(
                "use_weapons",
                f"{shooter.uid} fires its weapons one by one (vehicle_fire) [L563-L577]",
            )
        return _Arms(dict(face.cv), face.abilities)
    return _Arms(dict(weapon.cv), (*weapon.abilities, *face.abilities), weapon.name)


def working_weapons(u: UnitState) -> list[Weapon]:
    """A heavy vehicle's weapons that no Damage marker destroyed [L683-L692]."""
    weapons = u.face.weapons
    return [w for w in weapons if not weapon_lost(weapons, w, u.status.damage)]


def _working(u: UnitState, name: str) -> bool:
    """Whether the face the unit shows has the weapon ``name``, not destroyed."""
    return any(
        w.name == name and not weapon_lost(u.face.weapons, w, u.status.damage)
        for w in u.face.weapons
    )


def _weapon(u: UnitState, name: str) -> Weapon:
    for w in u.face.weapons:
        if w.name == name:
            if weapon_lost(u.face.weapons, w, u.status.damage):
                raise refuse("weapon_destroyed", f"{u.uid}'s {name} is destroyed [L683-L692]")
            return w
    raise refuse(
        "unknown_weapon",
        f"{u.uid} has no weapon {name!r}",
        kind=RefusalKind.INPUT,
        weapons=[w.name for w in u.face.weapons],
    )


def _ends(squares: frozenset[Square], facing: Facing, front: bool) -> list[Square]:
    """The squares along a vehicle's front edge (``front``) or its rear edge."""
    sign = 1 if front else -1
    key = {sq: sign * (sq.x * facing.dx + sq.y * facing.dy) for sq in squares}
    best = max(key.values())
    return [sq for sq in squares if key[sq] == best]


def attack_side(origin: frozenset[Square], target: Placement) -> str:
    """Which edge of a heavy vehicle a shot's line comes through (the edges are printed, the
    geometry is ours: note §8 item 24, rulings): ``"rear"`` when some square of the shooter
    lies within 45° of straight back from a rear square of the vehicle (edges included, the
    shooter choosing its aim [L522-L529]); ``"front"`` when every square of the shooter lies
    within 45° of straight ahead of a front square ("diagonale incluse" [L1768-L1772]);
    ``"side"`` otherwise."""
    facing = target.facing
    rears = _ends(target.squares, facing, front=False)
    fronts = _ends(target.squares, facing, front=True)
    back = facing.turned(4)
    if any(in_arc(r, back, s, Arc.NARROW) for r in rears for s in origin):
        return "rear"
    if all(any(in_arc(f, facing, s, Arc.NARROW) for f in fronts) for s in origin):
        return "front"
    return "side"


def _arc_and_range(
    origin: Placement, shooter: UnitState, target: UnitState, arms: _Arms | None = None
) -> None:
    """Arc de Tir Limité: some square of the target inside the arc of some square of the
    shooter (facing as placed; the diagram is absent, note §8 item 23) [L548-L558]; Portée
    Limitée: no shot beyond N squares [L1278-L1287]."""
    assert target.placement is not None
    face: _Arms | Face = arms if arms is not None else shooter.face
    arc_ref = face.ability(Ability.LIMITED_ARC)
    if arc_ref is not None:
        arc = Arc.NARROW if str(arc_ref.param) == "90" else Arc.HALF
        facing = origin.facing
        if not any(
            in_arc(s, facing, t, arc) for s in origin.squares for t in target.placement.squares
        ):
            raise refuse(
                "out_of_arc", f"{target.uid} is outside the {arc.value}° arc of {shooter.uid}"
            )
    range_ref = face.ability(Ability.LIMITED_RANGE)
    if range_ref is not None and isinstance(range_ref.param, int):
        span = distance(origin.squares, target.placement.squares)
        if span > range_ref.param:
            raise refuse(
                "out_of_range",
                f"{target.uid} is {span} squares away: {shooter.uid} reaches {range_ref.param}",
            )


def _not_silenced(state: BattleState, u: UnitState, weapon: str | None = None) -> None:
    """Objuration Mechanicum: no Shooting Action, Alternative ones included (a vehicle's
    silenced weapon only) [L3031-L3036]."""
    if silenced(state, u.uid, weapon):
        what = f"{u.uid}'s {weapon}" if weapon else u.uid
        raise refuse("objuration", f"{what} cannot shoot: Objuration Mechanicum [L3031-L3036]")


def plan_shot(
    state: BattleState,
    shooter: UnitState,
    target: UnitState,
    suppression: bool,
    weapon: Weapon | None = None,
) -> ShotPlan:
    """Check a Shooting Action (of one weapon, for a heavy vehicle) and gather its numbers
    [L432-L441], [L3159-L3178]; a heavy vehicle target adds the rear attack +2 or its
    Armure Frontale +2 DV by the edge the shot comes through [L651-L656], [L1768-L1772]."""
    if target.side == shooter.side:
        raise refuse("own_unit", "you cannot shoot your own units")
    _standing(target)
    if ambushed(target):
        raise refuse("ambushed", f"{target.uid} is in ambush: it cannot be shot [L1786]")
    origin = _shooting_from(state, shooter)
    assert target.placement is not None
    tclass = target.counter.unit_class
    face = _arms(shooter, weapon)
    _not_silenced(state, shooter, face.weapon)
    cv = face.cv.get(tclass)
    if cv is None:
        raise refuse("cannot_attack", f"{shooter.uid} has an X against {tclass.value} [L445-L465]")
    _arc_and_range(origin, shooter, target, face)
    if suppression and not face.has(Ability.SUPPRESSIVE_FIRE):
        raise refuse("no_suppressive_fire", f"{shooter.uid} has no Tir de Suppression")
    aboard = shooter.embarked_in is not None
    los = best_line_of_sight(
        state.board,
        origin.squares,
        target.placement.squares,
        shooter_class=shooter.counter.unit_class,
        target_class=tclass,
        blockers=_blockers(state, {shooter.uid, target.uid, shooter.embarked_in or ""}),
        embarked_shooter=aboard,
    )
    if not los.can_shoot:
        raise refuse(
            "no_line_of_sight", f"no line of sight to {target.uid}: {los.why}".rstrip(": ")
        )
    optics = face.has(Ability.OPTICS)
    long_range = is_long_range(origin.squares, target.placement.squares) and not optics
    side, bonuses, armour = "", 0, 0
    if tclass is UnitClass.HEAVY_VEHICLE:
        side = attack_side(origin.squares, target.placement)
        if side == "rear" and not target.face.has(Ability.NO_WEAK_POINT):
            bonuses = REAR_BONUS
        if side == "front" and target.face.has(Ability.FRONT_ARMOUR):
            armour = FRONT_ARMOUR
    bonuses += card_bonus(state, shooter.uid, SHOT_BONUS)  # a card's Alternative Bonus
    # Perfect Timing: no reducing obstacles, no terrain defence bonus [L3011-L3015]
    timed = perfect_timing(state, shooter.uid)
    terrain = 0 if timed else state.board.defence_bonus(target.placement.squares, tclass)
    request = OddsRequest(
        Kind.SUPPRESSION_FIRE if suppression else Kind.SHOT,
        Attacker(
            cv=cv,
            bonuses=bonuses,
            dice=2 if face.has(Ability.TWIN_LINKED) else 1,
            suppressed=shooter.suppressed,
            penalties=(0 if timed else los.penalty) + enfeebled(state, shooter.uid),
        ),
        Target(
            dv=target.face.dv,
            # Camo Cloak, a vehicle's armour: DV markers readied on the target (rulings 127);
            # a Telekinetic Dome over it (rulings 130)
            defence_bonus=terrain
            + armour
            + gear_dv(state, target.uid)
            + dome_bonus(state, target.uid),
        ),
        Situation(long_range=long_range),
    )
    return ShotPlan(
        request,
        str(los.sight),
        target_dv(request.target),
        side,
        face.weapon,
        # Perforant: the unit's, or a vehicle's Ammo marker readied for the shot (rulings 127)
        face.has(Ability.PIERCING) or gear_grants(state, shooter.uid, Ability.PIERCING, SHOT_BONUS),
        face.has(Ability.TERRIFYING_FIRE),
    )


def _best(roller: Roller, count: int, label: str) -> int:
    return max(roller.d6(label, stage="shot") for _ in range(count))


def damage_set_of(state: BattleState, uid: str) -> str | None:
    """The id of a heavy vehicle's Damage set: the colour on its tile or option [L666-L668]."""
    return _group_of(state, uid).damage_sets.get(uid)


def _locate(out: _Out, target: UnitState, attacker: str, modifier: int) -> DamageLocated:
    """The attacker's location roll for a heavy vehicle's step: 1 die + ``modifier``
    (Perforant / Perçant +1 [L1272-L1275]), clamped to 1..6 (note §8 item 26), read on the
    vehicle's Damage set [L658-L699]. No Suppressed penalty (note §8 item 5)."""
    set_id = damage_set_of(out.state, target.uid)
    damage_set = out.state.catalogue.damage_sets.get(set_id or "")
    if damage_set is None:
        raise refuse("no_damage_set", f"{target.uid} has no Damage set to roll on [L666-L668]")
    # a readied Mekaniak (and Grot Oiler) or Techmarine acts first (rulings 102)
    repair = find_repair(out.state, target)
    if repair is not None:
        out.emit(RepairUsed(repair.unit, target.uid, repair.modifier, repair.pick, repair.oiler))
        helpers = (repair.unit,) if repair.oiler is None else (repair.unit, repair.oiler)
        out.emit(UnitsActivated(helpers))
        modifier += repair.modifier
    start = len(out.roller.records)
    label = f"damage location on {target.uid} by {attacker}"
    die = out.roller.d6(label, stage="location")
    if repair is not None and repair.pick:  # the Techmarine's extra die, his side keeps one
        other = out.roller.d6(label, stage="location")
        die = min(die, other) if repair.pick == "low" else max(die, other)
    result = damage_location(die, modifier)
    face = damage_set.face(result)
    return DamageLocated(
        target.uid,
        damage_set.id,
        take_roll(out.roller, start),
        modifier,
        result,
        face.marker.value,
        face.number,
    )


def _take_steps(
    out: _Out, target: UnitState, steps: int, attacker: str = "", piercing: bool = False
) -> UnitState:
    located: DamageLocated | None = None
    left = steps - min(steps, target.status.hit_points)
    if target.counter.unit_class is UnitClass.HEAVY_VEHICLE and left == 1:
        located = _locate(out, target, attacker, 1 if piercing else 0)
    damage = [] if located is None else [DamageMarker(located.marker)]
    result = apply_step(target.counter, target.status, steps, damage)
    if located is not None:
        out.emit(located)
    out.emit(
        StepsTaken(
            target.uid,
            result.steps_taken,
            result.hit_points_used,
            str(result.state.face),
            result.state.hit_points,
            result.flipped,
            result.state.destroyed,
        )
    )
    if located is not None and located.marker == DamageMarker.HULL and not result.destroyed:
        # a Grot Rigger on board: 1 Suppressed instead of 2 [L2587-L2592] (rulings 133)
        rigger = target.gear.hull_suppressed if target.gear is not None else None
        count = HULL_SUPPRESSED if rigger is None else rigger
        if count:
            out.emit(SuppressedPlaced(target.uid, count))
    if result.destroyed and out.state.passengers(target.uid):
        _disembark_all(out, target)
    return out.state.units[target.uid]


def _saved(out: _Out, target: UnitState, piercing: bool) -> bool:
    """The armour save printed on the target's tile or given by its equipment (rulings 128),
    tried against the steps of one shot or assault unless the attack is Perforant / Perçant
    [L1869-L1888], [L1276-L1277]: the best green one always, a yellow one when an armour-save
    card is readied on the unit and the yellow save is the better (rulings 96)."""
    saves = armour_saves(out.state, target.uid)
    if not saves or piercing:
        return False
    green = best_save(saves, card=False)
    save = green
    if armour_card_ready(out.state, target.uid):
        yellow = best_save(saves, card=True)
        if yellow is not None and (green is None or yellow.value < green.value):
            use_armour_card(out, target.uid)
            save = yellow
    if save is None:
        return False
    note_pole_save(out, target.uid, save)  # a Boss marker's 4+ is used by it (rulings 147)
    start = len(out.roller.records)
    die = out.roller.d6(f"armour save of {target.uid}", stage="save")
    result = die - SUPPRESSED_PENALTY * target.suppressed - enfeebled(out.state, target.uid)
    saved = result >= save.value
    out.emit(ArmourSaved(target.uid, take_roll(out.roller, start), save.value, result, saved))
    return saved


def _hurt(
    out: _Out, target: UnitState, steps: int, piercing: bool, attacker: str = ""
) -> UnitState:
    """Steps from one shot or assault: the armour save first, then Hit Points, flips and a
    heavy vehicle's location roll."""
    if _saved(out, target, piercing):
        return out.state.units[target.uid]
    return _take_steps(out, target, steps, attacker, piercing)


def _fire(
    out: _Out,
    u: UnitState,
    target_id: str,
    suppression: bool,
    moving_penalty: int = 0,
    share: int | None = None,
    weapon: Weapon | None = None,
) -> None:
    """One Shooting Action's roll at ``target_id`` (``share``: the part of a Rafale's modified
    CV given to it, taken as its CV with no bonuses; ``weapon``: a heavy vehicle's weapon)."""
    target = _unit(out.state, target_id)
    plan = plan_shot(out.state, u, target, suppression, weapon)
    req = plan.request
    if moving_penalty:
        req = replace(req, attacker=replace(req.attacker, moving_penalty=moving_penalty))
    if share is not None:
        req = replace(req, attacker=replace(req.attacker, cv=share, bonuses=0))
    note_use(out, u.uid, SHOT_BONUS)
    note_gear(out, target.uid, None)  # its DV markers count against this shot
    start = len(out.roller.records)
    best = _best(out.roller, req.attacker.dice, f"shot by {u.uid}")
    final = shot_final(best, req)
    if suppression:
        markers = suppression_markers(final, plan.dv)
        outcome = f"suppressed_{markers}"
    else:
        markers = 0
        outcome = str(shot_outcome(final, plan.dv))
    out.emit(
        UnitShot(
            u.uid,
            target.uid,
            suppression,
            take_roll(out.roller, start),
            req.attacker.cv,
            modified_cv(req.attacker, req.kind),
            final_penalty(req.attacker, req.situation),
            req.situation.long_range,
            plan.sight,
            plan.dv,
            final,
            outcome,
            moving_penalty,
            plan.weapon,
            req.attacker.bonuses,
            plan.side,
        )
    )
    piercing = plan.piercing
    failed = outcome in (str(ShotOutcome.MISS), "suppressed_0")
    if failed and share is None and plan.terrifying:
        # Tir Effrayant: a failed shot still puts 1 Suppressed marker on the target, never
        # with Rafale [L1418-L1426] (always placed: it never helps the target's side)
        out.emit(SuppressedPlaced(target.uid, 1))
    if markers:
        out.emit(SuppressedPlaced(target.uid, markers))
    elif outcome == ShotOutcome.STEP:
        _hurt(out, target, 1, piercing, u.uid)
    elif outcome == ShotOutcome.COUP_DOUBLE:
        _hurt(out, target, 2, piercing, u.uid)
    arms = _arms(u, weapon)
    _destruction_after(out, u, target, destruction_dice(arms.ability(Ability.DESTRUCTION)))


def _shoot(out: _Out, command: Shoot, side: str) -> None:
    u = _reveal(out, command.unit, side)
    _able(u, out.state)
    if u.face.weapons:  # every weapon that can, at the one target [L563-L577]
        _vehicle_shots(out, u, _all_weapons_at(out.state, u, command))
        return
    _fire(out, u, command.target, command.suppression)


def _all_weapons_at(state: BattleState, u: UnitState, command: Shoot) -> list[WeaponShot]:
    """``shoot`` by a heavy vehicle: each working weapon that can shoot the target (its sight,
    arc, range, a CV that is not X; Tir de Suppression for a suppression fire)."""
    target = _unit(state, command.target)
    shots: list[WeaponShot] = []
    first: Refusal | None = None
    for w in working_weapons(u):
        try:
            plan_shot(state, u, target, command.suppression, w)
        except Refusal as exc:
            first = first or exc
            continue
        shots.append(WeaponShot(w.name, target.uid, command.suppression))
    if not shots:
        raise first or refuse("no_weapon", f"{u.uid} has no working weapon [L683-L692]")
    return shots


def _vehicle_fire(out: _Out, command: VehicleFire, side: str) -> None:
    u = _reveal(out, command.unit, side)
    _able(u, out.state)
    if not u.face.weapons:
        raise refuse("no_weapons", f"{u.uid} lists no weapons: it shoots with shoot")
    _vehicle_shots(out, u, list(command.shots))


def shots_of(u: UnitState, w: Weapon) -> int:
    """How many shots a weapon fires in the vehicle's Shooting Action: 2 with Double Tir on
    the weapon or on the face (at two different targets [L1196-L1200]), else 1."""
    double = w.ability(Ability.DOUBLE_SHOT) is not None or u.face.has(Ability.DOUBLE_SHOT)
    return 2 if double else 1


def _vehicle_shots(
    out: _Out, u: UnitState, shots: list[WeaponShot], penalties: Mapping[str, int] | None = None
) -> None:
    """A heavy vehicle's Shooting Action: each named weapon once, one after the other, each
    at its own target [L563-L577]. Every shot is checked before the first die (a refusal
    rolls nothing); each is read after the ones before it. ``penalties``: during a move, the
    Tir en Mouvement penalty of each weapon that may fire (rulings 140)."""
    totals = _vehicle_checks(out.state, u, shots, penalties)
    weapons = [_weapon(u, s.weapon) for s in shots]
    declared: set[str] = set()
    for s, w in zip(shots, weapons, strict=True):
        if s.share is not None and w.name not in declared:  # announced before its first die
            declared.add(w.name)
            split = tuple(BurstShare(x.target, x.share or 0) for x in shots if x.weapon == w.name)
            out.emit(BurstDeclared(u.uid, totals[w.name], split, w.name))
        if not out.state.units[s.target].alive or not out.state.units[u.uid].alive:
            continue  # a target an earlier shot destroyed; the declared shot is lost
        # a Rafale's share already had the penalty taken off the CV it splits
        pen = 0 if s.share is not None or penalties is None else penalties[w.name]
        _fire(out, out.state.units[u.uid], s.target, s.suppression, pen, share=s.share, weapon=w)


def _vehicle_checks(
    state: BattleState,
    u: UnitState,
    shots: Sequence[WeaponShot],
    penalties: Mapping[str, int] | None = None,
) -> dict[str, int]:
    """Every shot of a heavy vehicle's Shooting Action checked before the first die; the
    modified CV each Rafale weapon splits. During a move (``penalties``) only the weapons
    with Tir en Mouvement fire, none a suppression fire (rulings 140)."""
    most = sum(MAX_BURST if _has_burst(u, w) else shots_of(u, w) for w in u.face.weapons)
    if not 1 <= len(shots) <= most:
        raise refuse(
            "bad_weapons",
            f"name 1 to {len(u.face.weapons)} weapons, each once (twice with Double Tir)",
            kind=RefusalKind.INPUT,
        )
    weapons = [_weapon(u, s.weapon) for s in shots]
    if penalties is not None:  # during a move (rulings 140)
        for s, w in zip(shots, weapons, strict=True):
            if w.name not in penalties:
                raise refuse(
                    "no_shoot_on_move",
                    f"{w.name} has no Tir en Mouvement: it does not fire on the move [L572-L577]",
                )
            if s.suppression:
                raise refuse(
                    "move_suppression", "a shot on the move is no suppression fire (rulings 140)"
                )
    totals: dict[str, int] = {}
    for w in {w.name: w for w in weapons}.values():
        mine = [s for s in shots if s.weapon == w.name]
        if any(s.share is not None for s in mine):
            pen = 0 if penalties is None else penalties[w.name]
            totals[w.name] = _weapon_burst(state, u, w, mine, pen)
            continue
        if len(mine) > shots_of(u, w):
            raise refuse("weapon_twice", "each weapon fires once in a Shooting Action [L563-L577]")
        if len(mine) == 2 and (
            mine[0].target == mine[1].target or mine[0].suppression != mine[1].suppression
        ):
            # Double Tir: two different targets, both shots of one kind (rulings 69, 105)
            raise refuse(
                "double_shot_targets",
                f"{w.name}'s Double Tir fires at two different targets, both shots of one kind",
            )
    for s, w in zip(shots, weapons, strict=True):
        plan_shot(state, u, _unit(state, s.target), s.suppression, w)
    return totals


def _has_burst(u: UnitState, w: Weapon) -> bool:
    return w.ability(Ability.BURST) is not None or u.face.has(Ability.BURST)


def _weapon_burst(
    state: BattleState, u: UnitState, w: Weapon, mine: list[WeaponShot], moving_penalty: int = 0
) -> int:
    """A weapon's Rafale inside the vehicle's Shooting Action: every shot of the weapon has a
    share, 2 to 8 different targets of one class within 2 squares of each other, no
    suppression fire, each share at least +1, adding up to the weapon's modified CV
    [L1296-L1317] (rulings 70, 105), its Tir en Mouvement penalty taken off during a move
    (rulings 140). Returns that modified CV."""
    if not _has_burst(u, w):
        raise refuse("no_burst", f"{u.uid}'s {w.name} has no Rafale")
    if any(s.share is None or s.share < 1 for s in mine):
        raise refuse("burst_share", "each target of a Rafale gets at least +1 [L1298-L1301]")
    if not 2 <= len(mine) <= MAX_BURST:
        raise refuse(
            "burst_targets",
            f"a Rafale splits its CV between 2 and {MAX_BURST} targets",
            kind=RefusalKind.INPUT,
        )
    ids = [s.target for s in mine]
    if len(set(ids)) != len(ids):
        raise refuse("same_target", "a Rafale names each target once")
    if any(s.suppression for s in mine):
        raise refuse("burst_suppression", "a Rafale is no suppression fire")
    targets = [_unit(state, t) for t in ids]
    why = burst_problem(state, targets)
    if why is not None:
        raise refuse(why, "the targets of a Rafale are of one type, within 2 squares")
    plans = [plan_shot(state, u, t, False, w) for t in targets]
    attacker = plans[0].request.attacker
    if moving_penalty:
        attacker = replace(attacker, moving_penalty=moving_penalty)
    total = modified_cv(attacker, Kind.SHOT)
    if sum(s.share or 0 for s in mine) != total:
        raise refuse(
            "burst_total", f"the shares must add up to the modified CV, {total}", modified_cv=total
        )
    return total


@dataclass(frozen=True, slots=True)
class SnipePlan:
    """A sniper's shot before the die: its penalties (obstacles, Enfeeble), the line of sight
    and the table it reads (its tile's own, or the rulebook's [L1339-L1340])."""

    suppressed: int
    obstacles: int
    sight: str
    enfeebled: int = 0
    table: tuple[tuple[int, SniperEffect], ...] = DEFAULT_SNIPER_TABLE

    @property
    def penalties(self) -> int:
        """What comes off the die: 2 per Suppressed marker, the obstacles and Enfeeble."""
        return SUPPRESSED_PENALTY * self.suppressed + self.obstacles + self.enfeebled


def sniper_table(state: BattleState, uid: str) -> tuple[tuple[int, SniperEffect], ...]:
    """The sniper table printed on the unit's tile, else the rulebook's [L1331-L1340]."""
    tile = state.catalogue.tiles.get(_group_of(state, uid).tile)
    table = tile.sniper_table if tile is not None else None
    return table or DEFAULT_SNIPER_TABLE


def plan_snipe(state: BattleState, sniper: UnitState, target: UnitState) -> SnipePlan:
    """Check a sniper's Alternative Shooting Action: an infantry target [L1326-L1327] in
    sight, arc and range like any shot; the die takes the Suppressed markers and the
    obstacles, not the long range nor the CV [L1328-L1329] (rulings)."""
    if not sniper.face.has(Ability.SNIPER):
        raise refuse("no_sniper", f"{sniper.uid} has no Sniper")
    _not_silenced(state, sniper)
    if target.side == sniper.side:
        raise refuse("own_unit", "you cannot shoot your own units")
    _standing(target)
    if ambushed(target):
        raise refuse("ambushed", f"{target.uid} is in ambush: it cannot be shot [L1786]")
    if target.counter.unit_class is not UnitClass.INFANTRY:
        raise refuse("infantry_only", "a sniper only shoots infantry [L1326-L1327]")
    origin = _shooting_from(state, sniper)
    _arc_and_range(origin, sniper, target)
    assert target.placement is not None
    los = best_line_of_sight(
        state.board,
        origin.squares,
        target.placement.squares,
        shooter_class=sniper.counter.unit_class,
        target_class=target.counter.unit_class,
        blockers=_blockers(state, {sniper.uid, target.uid, sniper.embarked_in or ""}),
        embarked_shooter=sniper.embarked_in is not None,
    )
    if not los.can_shoot:
        raise refuse(
            "no_line_of_sight", f"no line of sight to {target.uid}: {los.why}".rstrip(": ")
        )
    return SnipePlan(
        sniper.suppressed,
        los.penalty,
        str(los.sight),
        enfeebled(state, sniper.uid),
        sniper_table(state, sniper.uid),
    )


def _snipe(out: _Out, command: Snipe, side: str) -> None:
    """The sniper table (the note's reconstruction, rulings): 1 or less nothing, 2-3 one
    Suppressed marker, 4-5 a step, 6 or more a step and a Suppressed marker unless the target
    is destroyed [L1331-L1338]. A step may be saved like any shot's."""
    u = _reveal(out, command.unit, side)
    _able(u, out.state)
    target = _unit(out.state, command.target)
    plan = plan_snipe(out.state, u, target)
    start = len(out.roller.records)
    bonus = card_bonus(out.state, u.uid, SHOT_BONUS)  # a card's shooting bonus (rulings 108)
    note_use(out, u.uid, SHOT_BONUS)
    die = out.roller.d6(f"sniper shot by {u.uid}", stage="shot")
    penalties = plan.penalties
    result = die + bonus - penalties
    effect = sniper_effect(result, plan.table)
    out.emit(
        UnitSniped(
            u.uid,
            target.uid,
            take_roll(out.roller, start),
            penalties,
            plan.sight,
            result,
            str(effect),
        )
    )
    if effect is SniperEffect.SUPPRESSED:
        out.emit(SuppressedPlaced(target.uid, 1))
    elif effect in (SniperEffect.STEP, SniperEffect.STEP_AND_SUPPRESSED):
        after = _hurt(out, target, 1, u.face.has(Ability.PIERCING))
        if effect is SniperEffect.STEP_AND_SUPPRESSED and after.alive:
            out.emit(SuppressedPlaced(target.uid, 1))


def _double_shot(out: _Out, command: DoubleShot, side: str) -> None:
    """Double Tir: two Shooting Actions at two different targets, one roll each
    [L1196-L1200]. Both shots are checked before the first die; the second is read after the
    first (a unit it destroyed no longer blocks the sight)."""
    u = _reveal(out, command.unit, side)
    _able(u, out.state)
    if len(command.targets) != 2:
        raise refuse("two_targets", "Double Tir shoots two targets", kind=RefusalKind.INPUT)
    first, second = command.targets
    _double_checks(out.state, u, first, second, suppression=command.suppression)
    for tid in command.targets:
        _fire(out, out.state.units[u.uid], tid, command.suppression)


def _double_checks(
    state: BattleState,
    u: UnitState,
    first: str,
    second: str,
    *,
    suppression: bool = False,
    moving: bool = False,
) -> None:
    """Double Tir's two targets, checked before the first die [L1196-L1200]; ``moving``: on a
    move, a unit (not a vehicle firing its weapons, rulings 140) with Tir en Mouvement
    (rulings 123)."""
    if not u.face.has(Ability.DOUBLE_SHOT):
        raise refuse("no_double_shot", f"{u.uid} has no Double Tir")
    if first == second:
        raise refuse("same_target", "Double Tir never shoots the same target twice [L1198-L1199]")
    for tid in (first, second):
        plan_shot(state, u, _unit(state, tid), suppression)


def _burst_checks(
    state: BattleState, u: UnitState, shares: Sequence[BurstShare], *, moving: bool = False
) -> int:
    """A Rafale's shares checked before the first die; the modified CV they split (with the
    Tir en Mouvement penalty taken off the CV when ``moving``, rulings 123)."""
    if moving and u.face.weapons:
        raise refuse(
            "weapons_on_move",
            "a vehicle's Rafale on the move names its weapons' shares (weapons, rulings 140)",
            kind=RefusalKind.INPUT,
        )
    if not u.face.has(Ability.BURST):
        raise refuse("no_burst", f"{u.uid} has no Rafale")
    if not 2 <= len(shares) <= MAX_BURST:
        raise refuse(
            "burst_targets",
            f"a Rafale splits its CV between 2 and {MAX_BURST} targets",
            kind=RefusalKind.INPUT,
        )
    ids = [s.target for s in shares]
    if len(set(ids)) != len(ids):
        raise refuse("same_target", "a Rafale names each target once")
    if any(s.cv < 1 for s in shares):
        raise refuse("burst_share", "each target of a Rafale gets at least +1 [L1298-L1301]")
    targets = [_unit(state, tid) for tid in ids]
    plans = [plan_shot(state, u, t, False) for t in targets]
    why = burst_problem(state, targets)
    if why == "burst_classes":
        raise refuse(why, "the targets of a Rafale are all of one type [L1305-L1306]")
    if why is not None:
        raise refuse(
            why, f"the targets of a Rafale stand within {BURST_SPREAD} squares of each other"
        )
    attacker = plans[0].request.attacker
    if moving:
        attacker = replace(attacker, moving_penalty=_on_move_guns(u)[0][1])
    total = modified_cv(attacker, Kind.SHOT)
    if sum(s.cv for s in shares) != total:
        raise refuse(
            "burst_total",
            f"the shares must add up to the modified CV, {total}",
            modified_cv=total,
        )
    return total


def burst_problem(state: BattleState, targets: Sequence[UnitState]) -> str | None:
    """Why these targets cannot share one Rafale (``None``: they can): one class, within 2
    squares of each other [L1304-L1306]."""
    if len({t.counter.unit_class for t in targets}) > 1:
        return "burst_classes"
    for a, b in combinations(targets, 2):
        if a.placement is None or b.placement is None:
            return "unit_gone"
        if distance(a.placement.squares, b.placement.squares) > BURST_SPREAD:
            return "burst_spread"
    return None


def _burst(out: _Out, command: Burst, side: str) -> None:
    """Rafale: the modified CV split between several targets, each at least +1, announced
    before the first shot; one roll per target, each with its own line of sight and
    obstacles [L1296-L1317]."""
    u = _reveal(out, command.unit, side)
    _able(u, out.state)
    shares = command.shares
    total = _burst_checks(out.state, u, shares)
    out.emit(BurstDeclared(u.uid, total, shares))
    for s in shares:
        _fire(out, out.state.units[u.uid], s.target, False, share=s.cv)


# -- templates ----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class TemplatePlan:
    """A template shot before its dice: the template, how far it scatters, whether a Sighum
    spotter shortens it, and the obstacles on the line to the intercase (Tir Direct)."""

    template: Template
    indirect: bool
    distance: int
    spotter: bool
    penalties: int
    sight: str
    shooter_suppressed: bool = True  # the shooter's Suppressed markers come off each attack


def plan_template(
    state: BattleState,
    u: UnitState,
    at: Intercase,
    facing: str,
    indirect: bool,
    option: str | None = None,
) -> TemplatePlan:
    """Check a Tir Direct (clear or reduced sight to the intercase, its obstacles taken off
    each attack, no range limit nor long range [L1381-L1416]) or a Tir Indirect (no sight
    needed, obstacles ignored [L1438-L1477]); ``option``: a Kombi Weapon marker's Tir Direct
    (B) with its Portée Limitée in intercases [L2668-L2675] (rulings 150)."""
    ability = Ability.INDIRECT_FIRE if indirect else Ability.DIRECT_FIRE
    ref = u.face.ability(ability)
    reach: int | None = None
    if option is not None:
        if indirect:
            raise refuse(
                "kombi_direct", "a Kombi Weapon gives Tir Direct only", kind=RefusalKind.INPUT
            )
        _, ref, reach = kombi_weapon(state, u, option, ability)
    if ref is None:
        name = "Tir Indirect" if indirect else "Tir Direct"
        raise refuse("no_template", f"{u.uid} has no {name}")
    _not_silenced(state, u)
    template = state.catalogue.templates.get(template_name(ref.param))
    if template is None:
        raise refuse("no_template", f"{u.uid}'s template {ref.param!r} is not in the data")
    if facing not in QUARTERS:
        raise refuse("bad_facing", "a template faces N, E, S or W", kind=RefusalKind.INPUT)
    if not any(at in sq.corners() for sq in state.board.squares):
        raise refuse(
            "off_board", "the intercase must be on the battlefield", kind=RefusalKind.INPUT
        )
    origin = _shooting_from(state, u)
    if reach is not None:  # Portée Limitée: intercases from a corner of its square [L1278-L1287]
        corners = [c for sq in origin.squares for c in sq.corners()]
        if min(max(abs(c.x - at.x), abs(c.y - at.y)) for c in corners) > reach:
            raise refuse("out_of_range", f"the intercase is beyond {reach} intercases")
    arc_ref = u.face.ability(Ability.LIMITED_ARC)
    if arc_ref is not None:  # the arc holds for Alternative actions too [L1159-L1168]
        arc = Arc.NARROW if str(arc_ref.param) == "90" else Arc.HALF
        around = [Square(at.x - 1 + dx, at.y - 1 + dy) for dx in (0, 1) for dy in (0, 1)]
        if not any(in_arc(o, origin.facing, sq, arc) for o in origin.squares for sq in around):
            raise refuse("out_of_arc", f"the intercase is outside the {arc.value}° arc of {u.uid}")
    blockers = _blockers(state, {u.uid, u.embarked_in or ""})
    los = sight_to_intercase(
        state.board,
        origin.squares,
        at,
        blockers=blockers,
        embarked_shooter=u.embarked_in is not None,
    )
    if not indirect and not los.can_shoot:
        raise refuse("no_line_of_sight", f"no line of sight to the intercase: {los.why}")
    spotter = indirect and any(
        w.side == u.side
        and w.face.has(Ability.SPOTTER)
        and w.placement is not None
        and sight_to_intercase(state.board, w.placement.squares, at, blockers=blockers).sight
        is Sight.CLEAR
        for w in state.on_board()
    )
    penalties = 0 if indirect else los.penalty
    distance = template_distance(ref.param, template) if indirect else 0
    return TemplatePlan(template, indirect, distance, spotter, penalties, str(los.sight))


def template_targets(
    state: BattleState, squares: frozenset[Square], shooter: str
) -> list[UnitState]:
    """Every unit under the template, even partly, friend or foe, the shooter left out, in
    reading order of its anchor square [L1397-L1405] (embarked units have no square)."""
    under = [
        u
        for u in state.on_board()
        if u.uid != shooter
        and u.placement is not None
        and u.placement.squares & squares
        and not ambushed(u)  # templates pass ambushed units by [L1787], [L1408]
    ]
    return sorted(under, key=lambda u: (u.placement.anchor.y, u.placement.anchor.x, u.uid))  # type: ignore[union-attr]


def template_request(
    state: BattleState, shooter: UnitState, target: UnitState, plan: TemplatePlan
) -> OddsRequest | None:
    """One attack of a template: its CV against the target's class (``None``: X, no attack),
    the shooter's Suppressed markers and the line's obstacles off the result; the target's DV
    and terrain bonus; a heavy vehicle is hit from a side [L1411-L1412]."""
    assert target.placement is not None
    tclass = target.counter.unit_class
    cv = plan.template.cv.get(tclass)
    if cv is None:
        return None
    return OddsRequest(
        Kind.SHOT,
        Attacker(
            cv=cv,
            # a card's shooting bonus counts for an Alternative Shooting Action (rulings 108)
            bonuses=card_bonus(state, shooter.uid, SHOT_BONUS) if plan.shooter_suppressed else 0,
            suppressed=shooter.suppressed if plan.shooter_suppressed else 0,
            penalties=plan.penalties
            + (enfeebled(state, shooter.uid) if plan.shooter_suppressed else 0),
        ),
        Target(
            dv=target.face.dv,
            defence_bonus=state.board.defence_bonus(target.placement.squares, tclass),
        ),
        Situation(),
    )


def _template_fire(out: _Out, command: TemplateFire, side: str) -> None:
    """Tir Direct / Tir Indirect: the template placed (an indirect one scattering on 1-4 of
    its dispersion die, never Suppressed), then one roll per unit under it, each resolved as
    a shot with the template's CVs (a Coup Double too, rulings 6) [L1381-L1477]."""
    u = _reveal(out, command.unit, side)
    _able(u, out.state)
    at = Intercase(command.x, command.y)
    plan = plan_template(out.state, u, at, command.facing, command.indirect)
    _place_template(out, u, plan, at, command.facing)


def _place_template(
    out: _Out, u: UnitState, plan: TemplatePlan, at: Intercase, facing: str
) -> None:
    """A template placed (a Tir Indirect's scattering), its attacks and its destruction."""
    template = plan.template
    start = len(out.roller.records)
    landed = at
    if plan.indirect and template.dispersion is not None:
        die = out.roller.d6(f"dispersion of {u.uid}'s template", stage="dispersion")
        landed = landing(template, at, facing, die, plan.distance, plan.spotter)
    roll = take_roll(out.roller, start)
    squares = template.squares(landed, facing) & out.state.board.squares
    targets = template_targets(out.state, squares, u.uid)
    out.emit(
        TemplatePlaced(
            u.uid,
            template.id,
            plan.indirect,
            Step(at.x, at.y, facing),
            roll,
            Step(landed.x, landed.y, facing),
            tuple(Step(sq.x, sq.y) for sq in sorted(squares, key=lambda q: (q.y, q.x))),
            tuple(t.uid for t in targets),
            plan.penalties,
            plan.sight,
        )
    )
    _template_attacks(out, u.uid, plan, targets)
    template_destruction(out, template, squares, u.uid)


def _flame(out: _Out, command: Flame, side: str) -> None:
    """Lance-Flammes: the template laid from the shooter's square; each unit it reaches,
    friend or foe, is attacked once with the template's CV against its class (an X: not
    attacked) − 2 per Suppressed marker on the shooter − the obstacles of its line, against
    its DV and terrain bonus (a heavy vehicle from a side), then takes 1 Suppressed marker if
    it still stands [L1214-L1258] (rulings 100)."""
    u = _reveal(out, command.unit, side)
    _able(u, out.state)
    if (command.x is None) != (command.y is None):
        raise refuse("flame_square", "name both x and y, or neither", kind=RefusalKind.INPUT)
    origin = None if command.x is None or command.y is None else Square(command.x, command.y)
    _flame_from(out, u, command.facing, origin=origin)


def _kombi(out: _Out, command: Kombi, side: str) -> None:
    """A Kombi Weapon marker (rulings 150) [L2668-L2675]: checked as the Tir Direct (B) or
    the Lance-Flammes (M) it gives, one marker used for good, then that Alternative Shooting
    Action made as the face's own would be."""
    u = _reveal(out, command.unit, side)
    _able(u, out.state)
    if command.flame:
        if (command.x is None) != (command.y is None):
            raise refuse("flame_square", "name both x and y, or neither", kind=RefusalKind.INPUT)
        origin = None if command.x is None or command.y is None else Square(command.x, command.y)
        group, ref, _ = kombi_weapon(out.state, u, command.option, Ability.FLAMER)
        plan_flame(out.state, u, command.facing, origin, ref)  # checked before the marker goes
        use_kombi(out, u.uid, group.id, command.option)
        _flame_from(out, out.state.units[u.uid], command.facing, origin=origin, ref=ref)
        return
    if command.x is None or command.y is None:
        raise refuse("intercase_needed", "name the intercase (x, y)", kind=RefusalKind.INPUT)
    at = Intercase(command.x, command.y)
    plan = plan_template(out.state, u, at, command.facing, False, command.option)
    group, _, _ = kombi_weapon(out.state, u, command.option, Ability.DIRECT_FIRE)
    use_kombi(out, u.uid, group.id, command.option)
    _place_template(out, out.state.units[u.uid], plan, at, command.facing)


FLAMER_MOVING_PENALTY = 2  # the flamer's template brings Tir en Mouvement (-2) [L1223-L1224]


def _flame_from(
    out: _Out,
    u: UnitState,
    facing: str,
    moving_penalty: int = 0,
    origin: Square | None = None,
    ref: AbilityRef | None = None,
) -> None:
    """The flamer's attacks from where ``u`` stands, or from ``origin`` aboard a transport
    (rulings 111; during a move: ``moving_penalty`` off the template's CV, rulings 109);
    ``ref``: a Kombi Weapon's Lance-Flammes instead of the face's (rulings 150)."""
    plan = plan_flame(out.state, u, facing, origin, ref)
    template = plan.template

    def steps(squares: frozenset[Square]) -> tuple[Step, ...]:
        return tuple(Step(sq.x, sq.y) for sq in sorted(squares, key=lambda q: (q.y, q.x)))

    out.emit(
        FlamerFired(
            u.uid,
            template.id,
            facing,
            steps(plan.squares),
            steps(plan.reached),
            tuple(uid for uid, _ in plan.targets),
        )
    )
    piercing = template.has(Ability.PIERCING)
    for uid, penalty in plan.targets:
        target = out.state.units[uid]
        shooter = out.state.units[u.uid]
        if not target.alive or target.placement is None:
            continue
        tclass = target.counter.unit_class
        cv = template.cv.get(tclass)
        if cv is None:
            continue  # an X against its class
        request = OddsRequest(
            Kind.SHOT,
            Attacker(
                cv=cv,
                bonuses=card_bonus(out.state, shooter.uid, SHOT_BONUS),
                moving_penalty=moving_penalty,
                suppressed=shooter.suppressed,
                penalties=penalty + enfeebled(out.state, shooter.uid),
            ),
            Target(
                dv=target.face.dv,
                defence_bonus=out.state.board.defence_bonus(target.placement.squares, tclass),
            ),
            Situation(),
        )
        note_use(out, u.uid, SHOT_BONUS)
        mark = len(out.roller.records)
        die = out.roller.d6(f"flamer of {u.uid} on {uid}", stage="shot")
        final = shot_final(die, request)
        dv = target_dv(request.target)
        outcome = shot_outcome(final, dv)
        out.emit(
            UnitShot(
                u.uid,
                uid,
                False,
                take_roll(out.roller, mark),
                cv,
                modified_cv(request.attacker, request.kind),
                final_penalty(request.attacker, request.situation),
                False,
                str(Sight.REDUCED if penalty else Sight.CLEAR),
                dv,
                final,
                str(outcome),
                0,
                f"flamer:{template.id}",
                0,
                "side" if tclass is UnitClass.HEAVY_VEHICLE else "",
            )
        )
        if outcome is ShotOutcome.STEP:
            _hurt(out, target, 1, piercing, u.uid)
        elif outcome is ShotOutcome.COUP_DOUBLE:
            _hurt(out, target, 2, piercing, u.uid)
        if out.state.units[uid].alive:
            out.emit(SuppressedPlaced(uid, 1))
    template_destruction(out, template, plan.reached, u.uid)


def _throw(out: _Out, command: Grenade, side: str) -> None:
    """Grenades / Tankbusta Bombs: one marker used for good, the template on the intercase,
    never scattering, every unit under it but the thrower attacked with its CVs − 2 per
    Suppressed marker on the thrower, no obstacle penalty (rulings 101) [L2515-L2564]."""
    u = _reveal(out, command.unit, side)
    _able(u, out.state)
    at = Intercase(command.x, command.y)
    plan = plan_grenade(out.state, u, command.option, at, command.facing)
    targets = template_targets(out.state, plan.squares, u.uid)
    out.emit(
        GrenadeThrown(
            u.uid,
            plan.group,
            plan.option,
            plan.template.id,
            Step(at.x, at.y, command.facing),
            tuple(Step(sq.x, sq.y) for sq in sorted(plan.squares, key=lambda q: (q.y, q.x))),
            tuple(t.uid for t in targets),
        )
    )
    thrown = TemplatePlan(plan.template, False, 0, False, 0, str(Sight.CLEAR))
    _template_attacks(out, u.uid, thrown, targets)
    template_destruction(out, plan.template, plan.squares, u.uid)


def _template_attacks(
    out: _Out, shooter: str, plan: TemplatePlan, targets: Sequence[UnitState]
) -> None:
    """One roll per unit under a template, each resolved as a shot with the template's CVs."""
    template = plan.template
    piercing = template.has(Ability.PIERCING)
    for t in targets:
        u = out.state.units[shooter]
        target = out.state.units[t.uid]
        if not target.alive or target.placement is None:
            continue
        request = template_request(out.state, u, target, plan)
        if request is None:
            continue  # an X against its class
        if plan.shooter_suppressed:
            note_use(out, u.uid, SHOT_BONUS)
        _one_die_attack(
            out,
            u.uid,
            target,
            request,
            label=f"template of {u.uid} on {target.uid}",
            sight=plan.sight,
            source=f"template:{template.id}",
            bonuses=0,
            piercing=piercing,
        )


def _one_die_attack(
    out: _Out,
    attacker: str,
    target: UnitState,
    request: OddsRequest,
    *,
    label: str,
    sight: str,
    source: str,
    bonuses: int,
    piercing: bool,
) -> None:
    """One die at one unit under an area attack (a template, a Killbolt's beam): rolled, logged
    as a shot from a side, and its steps taken."""
    mark = len(out.roller.records)
    die = out.roller.d6(label, stage="shot")
    final = shot_final(die, request)
    dv = target_dv(request.target)
    outcome = shot_outcome(final, dv)
    heavy = target.counter.unit_class is UnitClass.HEAVY_VEHICLE
    out.emit(
        UnitShot(
            attacker,
            target.uid,
            False,
            take_roll(out.roller, mark),
            request.attacker.cv,
            modified_cv(request.attacker, request.kind),
            final_penalty(request.attacker, request.situation),
            False,
            sight,
            dv,
            final,
            str(outcome),
            0,
            source,
            bonuses,
            "side" if heavy else "",
        )
    )
    if outcome is ShotOutcome.STEP:
        _hurt(out, target, 1, piercing, attacker)
    elif outcome is ShotOutcome.COUP_DOUBLE:
        _hurt(out, target, 2, piercing, attacker)


# -- psychic powers -------------------------------------------------------------------------------

PLAYED_POWERS = (
    frozenset(
        {
            PowerEffect.ENDURANCE,
            PowerEffect.SCRIERS_GAZE,
            PowerEffect.DA_KRUNCH,
            PowerEffect.KILLBOLT,
            PowerEffect.DA_JUMP,
        }
    )
    | PERSISTENT_POWERS
)
# the powers placed on a unit within range and sight (note §2.8)
TARGETED_POWERS = frozenset(
    {
        PowerEffect.ENDURANCE,
        PowerEffect.ENFEEBLE,
        PowerEffect.PERFECT_TIMING,
        PowerEffect.OBJURATION,
    }
)
KRUNCH_DICE = 2  # Da Krunch: 2 dice added, the defence class ignored [L2960-L2970]
WEIRDBOY_SHARE_RANGE = 2  # a Weirdboy's extra marker may go on Ork infantry within 2 squares


def power_problem(
    state: BattleState,
    u: UnitState,
    option_id: str,
    target_id: str | None,
    at: Intercase | None = None,
    facing: str = "N",
    weapon: str | None = None,
) -> tuple[RecruitmentOption, UnitState | None]:
    """Check a manifestation: a psyker, a power of its kind on its tile, one the match plays
    and not lost, its target in range and sight (note §2.8) [L2713-L2741]; Objuration
    Mechanicum on a vehicle with several weapons names the ``weapon`` it silences."""
    kind = u.counter.psyker
    if kind is None or not u.face.has(Ability.PSYKER):
        raise refuse("no_psyker", f"{u.uid} is no psyker")
    _not_silenced(state, u)  # a power is an Alternative Shooting Action [L2723-L2725]
    option = state.catalogue.options.get(option_id)
    if option is None or option_id not in _group_of(state, u.uid).options or option.power is None:
        raise refuse("no_such_power", f"{option_id!r} is not a psychic power on {u.uid}'s tile")
    power = option.power
    if power.psyker is not kind:
        raise refuse("wrong_psyker", f"a {kind.value} cannot manifest {option_id}")
    if power.effect not in PLAYED_POWERS:
        raise refuse("not_supported", f"{option_id} is not played by the match yet")
    if (u.uid, option_id) in state.lost_powers:
        raise refuse("power_lost", f"{option_id} was lost to the Perils of the Warp [L2828]")
    if kind is PsykerKind.LIBRARIAN and not state.catalogue.perils:
        # refused before the Perils die: after it, the refusal would tell the die (rulings 84)
        raise refuse("no_perils_pool", "the data holds no Perils of the Warp markers to draw")
    if power.effect is PowerEffect.DA_KRUNCH:
        _krunch_problem(state, u, option, at, facing)
    if power.effect is PowerEffect.KILLBOLT:
        beam_problem(state, u, option, None if at is None else Square(at.x, at.y))
    if power.effect is PowerEffect.DA_JUMP:  # the Weirdboy and an infantry unit (rulings 132)
        if weapon is not None:
            raise refuse("no_weapon", f"{option_id} names no weapon", kind=RefusalKind.INPUT)
        return option, jump_partner(state, u, target_id)
    if power.effect not in TARGETED_POWERS:
        if target_id is not None:
            raise refuse("no_target", f"{option_id} takes no target", kind=RefusalKind.INPUT)
        if weapon is not None:
            raise refuse("no_weapon", f"{option_id} names no weapon", kind=RefusalKind.INPUT)
        return option, None
    if target_id is None:
        raise refuse("target_needed", f"{option_id} needs a target", kind=RefusalKind.INPUT)
    target = _standing(_unit(state, target_id))
    if target.side != u.side and power.effect is PowerEffect.ENDURANCE:
        raise refuse("enemy_unit", "Endurance heals an allied unit [L2993-L2998]")
    _power_weapon(target, power.effect, weapon)
    origin = _shooting_from(state, u)
    assert target.placement is not None
    if power.range is not None and distance(origin.squares, target.placement.squares) > (
        power.range
    ):
        raise refuse("out_of_range", f"{target.uid} is beyond {power.range} squares")
    if power.line_of_sight != "none":
        los = best_line_of_sight(
            state.board,
            origin.squares,
            target.placement.squares,
            shooter_class=u.counter.unit_class,
            target_class=target.counter.unit_class,
            blockers=_blockers(state, {u.uid, target.uid, u.embarked_in or ""}),
        )
        clear = los.sight is Sight.CLEAR
        if not los.can_shoot or (power.line_of_sight == "clear" and not clear):
            raise refuse("no_line_of_sight", f"{option_id} needs a clear line of sight")
    if power.effect is PowerEffect.ENDURANCE and (
        target.status.face is not FaceKind.REDUCED or target.counter.face(FaceKind.INTACT) is None
    ):
        raise refuse("not_reduced", f"{target.uid} shows no reduced face to heal")
    return option, target


def _power_weapon(target: UnitState, effect: PowerEffect, weapon: str | None) -> None:
    """Objuration Mechanicum on a vehicle with several weapons goes on the working weapon the
    psyker chooses [L3034-L3036]; on any other unit (or another power) no weapon is named."""
    several = effect is PowerEffect.OBJURATION and len(target.face.weapons) > 1
    if not several:
        if weapon is not None:
            raise refuse("no_weapon", "name a weapon only for Objuration on a vehicle with several")
        return
    names = [w.name for w in working_weapons(target)]
    if weapon not in names:
        raise refuse(
            "weapon_needed",
            f"name one of {target.uid}'s weapons for the marker: {', '.join(names)}",
            kind=RefusalKind.INPUT,
        )


def _krunch_problem(
    state: BattleState,
    u: UnitState,
    option: RecruitmentOption,
    at: Intercase | None,
    facing: str,
) -> Template:
    """Da Krunch: its template on an intercase within the power's range in intercases of the
    Weirdboy's square, in clear sight [L2954-L2960]."""
    power = option.power
    assert power is not None
    template = state.catalogue.templates.get(power.template or "")
    if template is None:
        raise refuse("no_template", f"{option.id} names no template of the data")
    if at is None:
        raise refuse("intercase_needed", "place the template: x and y", kind=RefusalKind.INPUT)
    if facing not in QUARTERS:
        raise refuse("bad_facing", "a template faces N, E, S or W", kind=RefusalKind.INPUT)
    if not any(at in sq.corners() for sq in state.board.squares):
        raise refuse(
            "off_board", "the intercase must be on the battlefield", kind=RefusalKind.INPUT
        )
    origin = _shooting_from(state, u)
    corners = [c for sq in origin.squares for c in sq.corners()]
    reach = min(max(abs(c.x - at.x), abs(c.y - at.y)) for c in corners)
    if power.range is not None and reach > power.range:
        raise refuse("out_of_range", f"the intercase is beyond {power.range} intercases")
    blockers = _blockers(state, {u.uid, u.embarked_in or ""})
    los = sight_to_intercase(state.board, origin.squares, at, blockers=blockers)
    if los.sight is not Sight.CLEAR:
        raise refuse("no_line_of_sight", "Da Krunch needs a clear line of sight [L2956]")
    return template


def _krunch(out: _Out, u: UnitState, option: RecruitmentOption, at: Intercase, facing: str) -> None:
    """Da Krunch: every unit under the template, even partly, one by one (the Weirdboy left
    out): 2 dice added, minus 2 per Suppressed marker on him, against its DV and terrain
    bonus whatever its class; a double 6 destroys it (taken as a Coup Double: 2 steps)
    [L2960-L2970]."""
    template = _krunch_problem(out.state, u, option, at, facing)
    squares = template.squares(at, facing) & out.state.board.squares
    targets = template_targets(out.state, squares, u.uid)
    out.emit(
        TemplatePlaced(
            u.uid,
            template.id,
            False,
            Step(at.x, at.y, facing),
            take_roll(out.roller, len(out.roller.records)),
            Step(at.x, at.y, facing),
            tuple(Step(q.x, q.y) for q in sorted(squares, key=lambda q: (q.y, q.x))),
            tuple(t.uid for t in targets),
            0,
            "clear",
        )
    )
    for t in targets:
        target = out.state.units[t.uid]
        me = out.state.units[u.uid]
        if not target.alive or target.placement is None:
            continue
        mark = len(out.roller.records)
        dice = [
            out.roller.d6(f"da krunch of {u.uid} on {target.uid}", stage="shot")
            for _ in range(KRUNCH_DICE)
        ]
        penalty = SUPPRESSED_PENALTY * me.suppressed
        bonus = card_bonus(out.state, u.uid, SHOT_BONUS)  # a card's shooting bonus (rulings 108)
        note_use(out, u.uid, SHOT_BONUS)
        final = sum(dice) + bonus - penalty
        tclass = target.counter.unit_class
        dv = target.face.dv + out.state.board.defence_bonus(target.placement.squares, tclass)
        double_six = dice == [6, 6]
        outcome = (
            ShotOutcome.COUP_DOUBLE
            if double_six
            else ShotOutcome.STEP
            if final >= dv
            else ShotOutcome.MISS
        )
        out.emit(
            UnitShot(
                u.uid,
                target.uid,
                False,
                take_roll(out.roller, mark),
                0,
                0,
                penalty,
                False,
                "clear",
                dv,
                final,
                str(outcome),
                0,
                f"power:{option.id}",
                0,
                "side" if tclass is UnitClass.HEAVY_VEHICLE else "",
            )
        )
        if outcome is ShotOutcome.STEP:
            _hurt(out, target, 1, False, u.uid)
        elif outcome is ShotOutcome.COUP_DOUBLE:
            _hurt(out, target, 2, False, u.uid)
    template_destruction(out, template, squares, u.uid)


def beam_problem(
    state: BattleState, u: UnitState, option: RecruitmentOption, at: Square | None
) -> tuple[list[UnitState], frozenset[Square]]:
    """Killbolt, a Faisceau [L2774-L2789], [L2972-L2978]: a square on the battlefield within
    the power's range; its CVs are the data's (rulings 129). The units under the line from
    that square's centre to the psyker's, friend or foe, the psyker (and the transport he
    rides) left out, nearest first: the line ignores every obstacle, terrain and unit."""
    power = option.power
    assert power is not None
    if power.cv is None:
        raise refuse("no_cv", f"{option.id} has no Combat Values in the data (rulings 129)")
    if at is None:
        raise refuse("square_needed", "aim the beam at a square: x and y", kind=RefusalKind.INPUT)
    if at not in state.board.squares:
        raise refuse("off_board", "the square must be on the battlefield", kind=RefusalKind.INPUT)
    origin = _shooting_from(state, u)
    span = distance(origin.squares, {at})
    if span == 0:
        raise refuse("own_square", "aim the beam away from the psyker", kind=RefusalKind.INPUT)
    if power.range is not None and span > power.range:
        raise refuse("out_of_range", f"the square is beyond {power.range} squares")
    line = crossings(centre(at), centre(origin.anchor)).squares | {at}
    hit: list[tuple[int, int, int, str, UnitState]] = [
        (distance(origin.squares, p.squares), p.anchor.y, p.anchor.x, t.uid, t)
        for t in state.on_board()
        if t.uid not in (u.uid, u.embarked_in)
        and (p := t.placement) is not None
        and p.squares & line
    ]
    return [h[-1] for h in sorted(hit, key=lambda h: h[:4])], line


def beam_request(
    state: BattleState, u: UnitState, option: RecruitmentOption, target: UnitState
) -> OddsRequest | None:
    """One unit under the beam as a Shooting Action: 1 die + the power's CV against its class
    (X: not attacked), the psyker's Suppressed markers, Enfeeble and a shooting bonus, against
    its DV, its terrain bonus, a DV marker and a Telekinetic Dome (rulings 129)."""
    power = option.power
    assert power is not None
    assert power.cv is not None
    assert target.placement is not None
    tclass = target.counter.unit_class
    cv = power.cv.get(tclass)
    if cv is None:
        return None
    terrain = state.board.defence_bonus(target.placement.squares, tclass)
    return OddsRequest(
        Kind.SHOT,
        Attacker(
            cv=cv,
            bonuses=card_bonus(state, u.uid, SHOT_BONUS),
            suppressed=u.suppressed,
            penalties=enfeebled(state, u.uid),
        ),
        Target(
            dv=target.face.dv,
            defence_bonus=terrain + gear_dv(state, target.uid) + dome_bonus(state, target.uid),
        ),
        Situation(),
    )


def _beam(out: _Out, u: UnitState, option: RecruitmentOption, at: Square) -> None:
    """Killbolt: every unit under the line is attacked once, as a Shooting Action, nearest
    first; a Coup Double counts (note §8 item 3); a heavy vehicle is hit from a side."""
    targets, line = beam_problem(out.state, u, option, at)
    out.emit(
        BeamFired(
            u.uid,
            option.id,
            Step(at.x, at.y),
            tuple(Step(q.x, q.y) for q in sorted(line, key=lambda q: (q.y, q.x))),
            tuple(t.uid for t in targets),
        )
    )
    for t in targets:
        target = out.state.units[t.uid]
        me = out.state.units[u.uid]
        if not target.alive or target.placement is None or not me.alive:
            continue
        request = beam_request(out.state, me, option, target)
        if request is None:
            continue  # an X against its class
        note_use(out, u.uid, SHOT_BONUS)
        note_gear(out, target.uid, None)
        _one_die_attack(
            out,
            u.uid,
            target,
            request,
            label=f"killbolt of {u.uid} on {target.uid}",
            sight="beam",
            source=f"power:{option.id}",
            bonuses=request.attacker.bonuses,
            piercing=False,
        )


def _jump(out: _Out, psyker: str, target: UnitState | None) -> None:
    """Da Jump: the Weirdboy and the unit he takes leave the battlefield [L2935-L2937]; the
    unit's token not yet played is then played with no effect (an Activated marker)."""
    state = out.state
    assert state.turn is not None
    units = (psyker,) if target is None else (psyker, target.uid)
    out.emit(UnitsJumped(psyker, units, state.turn.turn))
    if target is not None and target.uid not in state.acted and target.uid not in state.activated:
        out.emit(UnitsActivated((target.uid,)))


def _jump_back(out: _Out, u: UnitState, command: ReserveMove, side: str) -> None:
    """A unit back from Da Jump: a Movement Action whose first square is on a board edge,
    counted in its MV (rulings 132) [L2937-L2942]."""
    state = out.state
    assert state.turn is not None
    _, left = state.jumped[u.uid]
    if left >= state.turn.turn:
        raise refuse("not_yet", f"{u.uid} comes back in the next turn's Reserve phase [L2937]")
    if not command.path:
        raise refuse(
            "path_needed",
            "name the path, from its first square on a board edge",
            kind=RefusalKind.INPUT,
        )
    if command.embark is not None or command.demolish is not None:
        raise refuse("not_supported", "a unit back from Da Jump only moves")
    try:
        first = placement_of(command.path[0], u.counter.footprint)
    except (KeyError, ValueError):
        raise refuse(
            "bad_facing", "a facing is N, NE, E, SE, S, SW, W or NW", kind=RefusalKind.INPUT
        ) from None
    edges = landing_problem(state, u, first.anchor)
    if not all(_free(state, sq, {u.uid}) for sq in first.squares) or any(
        e.forbids(u.counter.unit_class) for sq in first.squares for e in state.board.elements_at(sq)
    ):
        raise refuse("entry_taken", "its first square must be free and open to it")
    card = card_bonus(state, u.uid, MOVE_BONUS)
    mv = u.face.mv
    if mv is None or mv + card - SUPPRESSED_MV * u.suppressed < 1:
        raise refuse("cannot_move", f"{u.uid} cannot make the Movement Action back [L274-L314]")
    placed = replace(state, units={**state.units, u.uid: replace(u, placement=first)})
    entered = placed.units[u.uid]
    rest = _placements(entered, command.path[1:]) if len(command.path) > 1 else []
    # the first square entered counts in its move
    mover = Mover(placed.mover(u.uid), mv, card - 1)
    cost = (_check_move(placed, entered, rest, mover=mover) if rest else 0) + 1
    out.emit(JumpLanded(u.uid, tuple(sorted(edges))))
    out.emit(UnitMoved(u.uid, tuple(_step_of(p) for p in (first, *rest)), cost, reserve=True))


def _perils_pool(state: BattleState) -> list[PerilsMarker]:
    return [m for m in state.catalogue.perils for _ in range(m.count)]


def _draw(roller: Roller, n: int, label: str) -> int:
    """Draw one of ``n`` (at most 6) face-down markers: a D6, rolled again above ``n`` (a fair
    draw); after 20 rolls above it, the last is read modulo ``n``."""
    value = 1
    for _ in range(20):
        value = roller.d6(label, stage="perils")
        if value <= n:
            return value
    return (value - 1) % n + 1


def _manifest(out: _Out, command: Manifest, side: str) -> None:
    """Manifest a power: its cost in Suppressed markers on the psyker (a Weirdboy may put one
    of them on Ork infantry within 2 squares [L2874-L2889]), the Perils of the Warp test, then
    the power unless the Perils cancel it [L2723-L2741], [L2808-L2918]. A Librarian whose
    Perils marker let him use the power again manifests it with no token (rulings 157)."""
    if out.state.again == (command.unit, command.power):
        u = _own(out.state, command.unit, side)
    else:
        u = _reveal(out, command.unit, side)
    _able(u, out.state)
    at = None if command.x is None or command.y is None else Intercase(command.x, command.y)
    option, target = power_problem(
        out.state, u, command.power, command.target, at, command.facing, command.weapon
    )
    power = option.power
    assert power is not None
    assert power.effect is not None
    cost = power.cost
    if command.share is not None:
        sharer = _standing(_own(out.state, command.share, side))
        if (
            u.counter.psyker is not PsykerKind.WEIRDBOY
            or cost < 2
            or sharer.uid == u.uid
            or sharer.counter.unit_class is not UnitClass.INFANTRY
            or sharer.placement is None
            or u.placement is None
            or distance(u.placement.squares, sharer.placement.squares) > WEIRDBOY_SHARE_RANGE
        ):
            raise refuse(
                "bad_share",
                "only a Weirdboy paying 2 or more puts 1 marker on Ork infantry within 2 squares",
            )
        out.emit(SuppressedPlaced(sharer.uid, 1))
        cost -= 1
    if cost:
        out.emit(SuppressedPlaced(u.uid, cost))
    me = out.state.units[u.uid]
    level = u.counter.psyker_level
    start = len(out.roller.records)
    die = out.roller.d6(f"perils of the warp for {u.uid}", stage="perils")
    result = die + level - SUPPRESSED_PENALTY * me.suppressed - enfeebled(out.state, me.uid)
    marker: PerilsMarker | None = None
    if me.counter.psyker is PsykerKind.LIBRARIAN:
        perils = str(librarian_perils(result))
        pool = _perils_pool(out.state)
        if perils == LibrarianPerils.DRAW_MARKER:
            assert pool, "power_problem refuses a Librarian's power without a pool"
            if not seeded(out.roller):  # dice by hand would choose the marker (rulings 124)
                raise perils_by_hand()
            marker = pool[_draw(out.roller, len(pool), f"perils marker for {u.uid}") - 1]
    else:
        perils = str(weirdboy_perils(result))
    applies = perils != WeirdboyPerils.EXPLODES and (
        marker is None or marker.effect is not PerilsEffect.CANCELLED
    )
    out.emit(
        PowerManifested(
            u.uid,
            option.id,
            power.effect.value,
            None if target is None else target.uid,
            take_roll(out.roller, start),
            level,
            me.suppressed,
            result,
            perils,
            None if marker is None else marker.effect.value,
            0 if marker is None else marker.value,
            applies,
            command.weapon,
        )
    )
    if applies and power.effect is PowerEffect.DA_KRUNCH:
        assert at is not None
        _krunch(out, out.state.units[u.uid], option, at, command.facing)
    elif applies and power.effect is PowerEffect.KILLBOLT:
        assert at is not None
        _beam(out, out.state.units[u.uid], option, Square(at.x, at.y))
    elif applies and power.effect is PowerEffect.DA_JUMP:
        _jump(out, u.uid, target)
    elif applies:
        _power_effect(out, power.effect, side, target)
    if perils == WeirdboyPerils.EXPLODES:
        _explode(out, me)
        return
    if perils == WeirdboyPerils.STEP:
        after = _take_steps(out, out.state.units[u.uid], 1)
        if after.alive and after.suppressed:
            out.emit(SuppressedRemoved(u.uid, after.suppressed))
        return
    if marker is None:
        return
    if marker.effect is PerilsEffect.CANCELLED:
        out.emit(PowerLost(u.uid, option.id))
    if marker.effect is PerilsEffect.SUPPRESSED:
        out.emit(SuppressedPlaced(u.uid, marker.value))
        return
    if marker.effect is PerilsEffect.STEPS:
        after = _take_steps(out, out.state.units[u.uid], min(2, marker.value))
        if not after.alive:
            return
    now = out.state.units[u.uid]
    if now.suppressed:
        out.emit(SuppressedRemoved(u.uid, now.suppressed))
    if marker.effect is PerilsEffect.AGAIN and now.alive:
        # he may at once use the same power again, paying its cost [L2846-L2851]
        out.emit(PowerAgainOffered(u.uid, option.id))


def _power_effect(out: _Out, effect: PowerEffect, side: str, target: UnitState | None) -> None:
    if effect is PowerEffect.ENDURANCE:
        assert target is not None
        out.emit(UnitFlipped(target.uid, str(FaceKind.INTACT)))  # back to its intact face
    elif effect is PowerEffect.SCRIERS_GAZE:
        turn = out.state.turn
        if turn is not None and turn.initiative == side:  # used by the other side: nothing
            out.emit(InitiativeKept(side))


def _explode(out: _Out, weirdboy: UnitState) -> None:
    """The Weirdboy explodes: the explosion template (``weirdboy`` in the data) on the one of
    the 4 intercases around his square that covers the most units (the first in reading order
    on a tie: the engine picks, rulings), each attacked with its CVs; then he is destroyed
    [L2897-L2907] (note §8 item 43)."""
    template = out.state.catalogue.templates.get("weirdboy")
    if template is not None and weirdboy.placement is not None:
        sq = weirdboy.placement.anchor
        best: tuple[int, Intercase, list[UnitState]] | None = None
        for corner in sorted(sq.corners(), key=lambda c: (c.y, c.x)):
            squares = template.squares(corner) & out.state.board.squares
            under = template_targets(out.state, squares, weirdboy.uid)
            if best is None or len(under) > best[0]:
                best = (len(under), corner, under)
        assert best is not None
        _, corner, under = best
        squares = template.squares(corner) & out.state.board.squares
        # not his Shooting Action: his Suppressed markers do not weaken the blast (rulings)
        plan = TemplatePlan(template, False, 0, False, 0, "clear", shooter_suppressed=False)
        out.emit(
            TemplatePlaced(
                weirdboy.uid,
                template.id,
                False,
                Step(corner.x, corner.y, "N"),
                take_roll(out.roller, len(out.roller.records)),
                Step(corner.x, corner.y, "N"),
                tuple(Step(q.x, q.y) for q in sorted(squares, key=lambda q: (q.y, q.x))),
                tuple(t.uid for t in under),
                0,
                "clear",
            )
        )
        _template_attacks(out, weirdboy.uid, plan, under)
    me = out.state.units[weirdboy.uid]
    if me.alive:
        out.emit(StepsTaken(me.uid, 0, 0, str(me.status.face), me.status.hit_points, False, True))


# -- assault ------------------------------------------------------------------------------------


def _sign(v: int) -> int:
    return (v > 0) - (v < 0)


def _free(state: BattleState, sq: Square, leave_out: set[str]) -> bool:
    return not any(
        sq in u.placement.squares
        for u in state.on_board()
        if u.uid not in leave_out and u.placement is not None
    )


def retreat_squares(
    state: BattleState, defender: UnitState, start: Square, attacker: str
) -> list[Placement]:
    """The open squares of the 3 opposite the attacker's start square, in the order the
    battle offers them: straight back first, then the clockwise and the anticlockwise
    diagonal (rulings 60). Open: the move there is legal (on the battlefield, allowed, empty,
    not a step inside one enemy zone of control)."""
    assert defender.placement is not None
    here = defender.placement.anchor
    d = (_sign(here.x - start.x), _sign(here.y - start.y))
    back = next(f for f in Facing if (f.dx, f.dy) == d)
    units = [b for b in state.board_units() if b.id != attacker]
    out: list[Placement] = []
    for facing in (back, back.turned(1), back.turned(-1)):
        sq = Square(here.x + facing.dx, here.y + facing.dy)
        to = Placement(sq, defender.placement.facing)
        mover = Mover(defender.board_unit(), 1)
        if check_path(state.board, mover, units, [to]).ok:
            out.append(to)
    return out


def _retreat(
    out: _Out, defender: UnitState, start: Square, attacker: str, entry: Placement
) -> bool:
    """The beaten infantry retreats into one of the 3 squares opposite the attacker, its owner
    choosing when more than one is open (``True``: the battle waits for that choice, then the
    attacker takes ``entry``, rulings 142); it is destroyed when none is open or the retreat
    moves it inside an enemy zone of control [L1604-L1622]."""
    state = out.state
    open_squares = retreat_squares(state, defender, start, attacker)
    if len(open_squares) > 1 and out.state.placing is None:
        out.emit(
            SquareAwaited(
                defender.uid,
                defender.side,
                "retreat",
                tuple(_step_of(p) for p in open_squares),
                attacker,
                _step_of(entry),
                "takes the defender's square",
            )
        )
        return True
    if open_squares:
        out.emit(ForcedMove(defender.uid, _step_of(open_squares[0]), "retreat"))
        return False
    assert defender.placement is not None
    here = defender.placement.anchor
    d = (_sign(here.x - start.x), _sign(here.y - start.y))
    back = next(f for f in Facing if (f.dx, f.dy) == d)
    for facing in (back, back.turned(1), back.turned(-1)):  # into a transport (rulings 121)
        sq = Square(here.x + facing.dx, here.y + facing.dy)
        for t in state.on_board():
            if t.side != defender.side or t.placement is None or sq not in t.placement.squares:
                continue
            try:
                _embark_problem(state, defender.uid, t.uid)
            except Refusal:
                continue
            out.emit(UnitEmbarked(defender.uid, t.uid))
            return False
    out.emit(
        StepsTaken(
            defender.uid, 0, 0, str(defender.status.face), defender.status.hit_points, False, True
        )
    )
    return False


def _choose_square(out: _Out, command: ChooseSquare, side: str) -> None:
    """The owner's square for its unit forced to move, one of those offered; then the
    attacker takes the square it was to take (rulings 142)."""
    p = out.state.placing
    if p is None:
        raise refuse("no_square_awaited", "no unit waits for its square")
    if side != p.side:
        raise refuse("not_your_turn", "the unit's owner chooses its square")
    if command.unit != p.unit:
        raise refuse("wrong_unit", f"the square awaited is {p.unit}'s", kind=RefusalKind.INPUT)
    chosen = next((s for s in p.squares if (s.x, s.y) == (command.x, command.y)), None)
    if chosen is None:
        raise refuse(
            "bad_square",
            f"{p.unit} may go to {', '.join(f'({s.x}, {s.y})' for s in p.squares)}",
            kind=RefusalKind.INPUT,
            squares=[[s.x, s.y] for s in p.squares],
        )
    out.emit(ForcedMove(p.unit, chosen, p.why))
    if p.why == OUT_OF_WRECK:  # a destroyed transport's passenger (rulings 143)
        _out_of_the_wreck(out, p.unit)
        _disembark_all(out, out.state.units[p.attacker])  # the next passengers
        return
    out.emit(ForcedMove(p.attacker, p.entry, p.attacker_why))


ASSAULT_INTO_WRECK = "takes the defender's square, onto its wreck"
ASSAULT_INTO_WRECK_POINTS = 1  # [L1645-L1647], [L1659-L1660]


def _heavy_takes_the_square(out: _Out, uid: str, gone: UnitState, entry: Placement) -> None:
    """A heavy vehicle that beat a vehicle takes its square [L1643-L1647], [L1651-L1662]: a
    light vehicle's, whether its wreck lies there or it was removed; a heavy vehicle's only
    when it lies there as a wreck not forbidden to heavy vehicles. The wreck takes 1
    Destruction point (not the points of driving into a wreck, rulings 81). The move into
    the square was checked with the assault, the defender's squares left free (rulings 107)."""
    if gone.alive:
        return  # beaten but standing: the attacker stays on its start square
    terrain = gone.wreck_terrain()
    if terrain is None:  # removed, no wreck face
        if gone.counter.unit_class is not UnitClass.HEAVY_VEHICLE:
            out.emit(ForcedMove(uid, _step_of(entry), "takes the defender's square"))
        return
    if terrain.forbids(UnitClass.HEAVY_VEHICLE):
        return
    out.emit(ForcedMove(uid, _step_of(entry), ASSAULT_INTO_WRECK))
    total = out.state.destruction.get(gone.uid, 0) + ASSAULT_INTO_WRECK_POINTS
    removed = terrain.structure is not None and structure_destroyed(total, terrain.structure)
    out.emit(DestructionDealt(gone.uid, ASSAULT_INTO_WRECK_POINTS, total, removed, uid))


def assault_request(
    state: BattleState, u: UnitState, target: UnitState, support: int = 0
) -> OddsRequest:
    """The numbers of ``u``'s assault on ``target`` with ``support`` supporters (§4.4): the
    request the exact odds are read from, and the roll's modifiers."""
    face, tface = u.face, target.face
    ability = face.ability(Ability.ASSAULT)
    t_ability = tface.ability(Ability.ASSAULT)
    tclass = target.counter.unit_class
    assert target.placement is not None
    return OddsRequest(
        Kind.ASSAULT,
        Attacker(
            cv=face.cv_against(tclass) or 0,
            assault_bonus=ability.param if ability and isinstance(ability.param, int) else 0,
            support=support,
            suppressed=u.suppressed,
            bonuses=card_bonus(state, u.uid, ASSAULT_BONUS)
            + warpath_bonus(state, u.uid)
            + banner_bonus(state, u.uid),
            penalties=enfeebled(state, u.uid),
        ),
        Target(
            cv=tface.cv_against(u.counter.unit_class) or 0,
            defence_bonus=state.board.defence_bonus(target.placement.squares, tclass),
            assault_bonus=(
                t_ability.param if t_ability and isinstance(t_ability.param, int) else 0
            ),
            has_assault=t_ability is not None,
            suppressed=target.suppressed,
            bonuses=card_bonus(state, target.uid, ASSAULT_BONUS)
            + warpath_bonus(state, target.uid)
            + banner_bonus(state, target.uid),
            penalties=enfeebled(state, target.uid),
        ),
    )


def assault_start_problem(
    state: BattleState, u: UnitState, target: UnitState, path: Sequence[Placement]
) -> str | None:
    """Why ``u``'s assault on ``target`` along ``path`` (the placements after each step,
    empty: from where it stands) would be refused by its movement or its start square
    (``None``: it would not). The assault's other checks are the unit's and the target's."""
    if u.embarked_in is not None and not path:  # from the transport's square (rulings 121)
        return None if aboard_start(state, u, target) is not None else "not_adjacent"
    if (u.placement is None and u.embarked_in is None) or target.placement is None:
        return "unit_gone"
    last = path[-1] if path else u.placement
    assert last is not None
    # a vehicle's footprint goes with it: a 2-square one's front onto the defender's square
    entry = Placement(target.placement.anchor, last.facing, last.footprint)
    bonus = card_bonus(state, u.uid, MOVE_BONUS)
    mover = Mover(state.mover(u.uid), u.face.mv, bonus, assault_target=target.uid)
    check = check_path(state.board, mover, state.board_units(), [*path, entry])
    if not check.ok or check.reach is None or check.reach.pushes:
        return "illegal_move"
    start = path[-1] if path else last
    if not _free(state, start.anchor, {u.uid}):
        return "start_taken"
    if not any(start.anchor in s.neighbours() for s in target.placement.squares):
        return "not_adjacent"
    return None


def _assault_piercing(state: BattleState, u: UnitState) -> bool:
    """Perçant: the unit's, or a Rokkit Hammers marker readied for its assault roll
    [L2550-L2556] (rulings 127)."""
    return u.face.has(Ability.ASSAULT_PIERCING) or gear_grants(
        state, u.uid, Ability.ASSAULT_PIERCING, ASSAULT_BONUS
    )


def _assault(out: _Out, command: Assault, side: str) -> None:
    u = _reveal(out, command.unit, side)
    _able(u, out.state)
    state = out.state
    face = u.face
    ability = face.ability(Ability.ASSAULT)
    if ability is None:
        raise refuse("no_assault", f"{u.uid} has no Assaut: it cannot assault [L1500-L1506]")
    target = _standing(_unit(state, command.target))
    if target.side == side:
        raise refuse("own_unit", "you cannot assault your own units")
    tclass = target.counter.unit_class
    cv = face.cv_against(tclass)
    if cv is None:
        raise refuse("cannot_attack", f"{u.uid} has an X against {tclass.value} [L1492-L1496]")
    assert target.placement is not None
    path = _placements(u, command.path) if command.path else []
    aboard = aboard_start(state, u, target) if u.embarked_in and not path else None
    if u.embarked_in and not path and aboard is None:
        raise refuse(
            "not_adjacent",
            "from inside its transport, the assault starts from a square of the transport next "
            "to the defender [L1507-L1510], [L2034-L2038] (or give a path out of it)",
        )
    last = path[-1] if path else aboard or u.placement
    assert last is not None
    # a vehicle's footprint goes with it: a 2-square one's front onto the defender's square
    entry = Placement(target.placement.anchor, last.facing, last.footprint)
    start, cost = last, 1  # from the transport's square: 1 square into the defender's
    if aboard is None:
        cost = _check_move(state, u, [*path, entry], assault_target=target.uid)
        if not _free(state, start.anchor, {u.uid}):
            raise refuse("start_taken", "the assault must start from a free square [L1507]")
        if not any(start.anchor in s.neighbours() for s in target.placement.squares):
            raise refuse("not_adjacent", "the assault start square must touch the defender")
    # supporters [L1556-L1571], declared before the move
    zone = zone_of_control(state.board, target.board_unit())
    supporters = tuple(dict.fromkeys(command.supporters))
    if len(supporters) > MAX_SUPPORT:
        raise refuse("too_many_supporters", f"at most {MAX_SUPPORT}", kind=RefusalKind.INPUT)
    for sid in supporters:
        s = _standing(_own(out.state, sid, side))
        why = (
            "is the attacker"
            if sid == u.uid
            else "has no Assaut"
            if not s.face.has(Ability.ASSAULT)
            else "has already acted"
            if sid in out.state.acted or sid in out.state.activated
            else "is Suppressed"
            if s.suppressed
            else "is not in the defender's zone of control"
            if s.placement is None or not (s.placement.squares & zone)
            else ""
        )
        if why:
            raise refuse("bad_supporter", f"{sid} cannot support: it {why}")
    if path:
        steps = tuple(_step_of(p) for p in path)
        if overwatch_steps(state, u, path):  # the other side's En Alerte first (rulings 122)
            assert state.scenario is not None
            opponent = state.scenario.opponent(side)
            out.emit(MoveDeclared(u.uid, side, opponent, steps, assault=target.uid,
                                  supporters=supporters))  # fmt: skip
            return
        out.emit(UnitMoved(u.uid, steps, cost - 1))
    _fight(out, u.uid, target.uid, supporters, start, entry)


def _fight(
    out: _Out, uid: str, tid: str, supporters: tuple[str, ...], start: Placement, entry: Placement
) -> None:
    """The assault once the attacker stands on its start square: the supporters' Activated
    markers, the dice and the outcome (§4.4)."""
    if supporters:
        out.emit(UnitsActivated(supporters))
    # an ambushed defender (or attacker) engaged in an assault turns Inactive [L1791-L1792]
    unmask(out, tid, ENGAGED, uid)
    unmask(out, uid, ENGAGED, tid)
    state = out.state
    u, target = state.units[uid], state.units[tid]
    face = u.face
    tclass = target.counter.unit_class
    request = assault_request(state, u, target, len(supporters))
    note_use(out, u.uid, ASSAULT_BONUS)
    note_use(out, target.uid, ASSAULT_BONUS)
    a_dice, d_dice = assault_dice(request)
    a_mod, d_mod = assault_modifiers(request)
    mark = len(out.roller.records)
    a_best = max(out.roller.d6(f"assault by {u.uid}", stage="attacker") for _ in range(a_dice))
    d_best = max(out.roller.d6(f"defence of {target.uid}", stage="defender") for _ in range(d_dice))
    a_total, d_total = a_best + a_mod, d_best + d_mod
    outcome = assault_outcome(a_total, d_total)
    out.emit(
        AssaultResolved(
            u.uid,
            target.uid,
            supporters,
            _step_of(start),
            take_roll(out.roller, mark),
            a_dice,
            a_total,
            d_total,
            str(outcome),
        )
    )
    if outcome is AssaultOutcome.ATTACKER_WINS:
        # a beaten heavy vehicle takes a step (its location roll) and never retreats; the
        # infantry attacker stays on its start square [L1651-L1662]
        after = _hurt(out, target, 1, _assault_piercing(state, u), u.uid)
        waits = (
            after.alive
            and tclass is UnitClass.INFANTRY
            and _retreat(out, after, start.anchor, u.uid, entry)
        )
        if waits:
            # its owner chooses its square first (rulings 142); the Destruction dice are the
            # attack's and are rolled now, at the structure the defender stood in
            _destruction_after(out, u, target, destruction_dice(face.ability(Ability.DESTRUCTION)))
            return
        # the attacker takes the square of beaten infantry that left it or was destroyed; after
        # beating a light vehicle it stays on its start square (note §8 item 12)
        gone = out.state.units[target.uid]
        if tclass is UnitClass.INFANTRY and (not gone.alive or gone.placement != target.placement):
            out.emit(ForcedMove(u.uid, _step_of(entry), "takes the defender's square"))
        elif u.counter.unit_class is UnitClass.HEAVY_VEHICLE:
            _heavy_takes_the_square(out, u.uid, gone, entry)
    elif outcome is AssaultOutcome.DEFENDER_WINS:
        _hurt(
            out,
            out.state.units[u.uid],
            1,
            _assault_piercing(state, target),
            target.uid,
        )
        if vehicle_on_infantry(u, target):  # the vehicle takes the square anyway (rulings 119)
            vehicle_takes_and_pushes(out, u.uid, target.uid, entry)
    elif vehicle_on_infantry(u, target):  # a tie [L1697-L1700]
        vehicle_takes_and_pushes(out, u.uid, target.uid, entry)
    _destruction_after(out, u, target, destruction_dice(face.ability(Ability.DESTRUCTION)))


# -- reserve and end of turn ---------------------------------------------------------------------


def _reserve_turn(state: BattleState, side: str) -> None:
    _phase(state, Phase.RESERVE)
    assert state.turn is not None
    if side in state.reserve_done:
        raise refuse("reserve_done", "you have ended your Reserve phase")
    if side != state.turn.initiative and state.turn.initiative not in state.reserve_done:
        raise refuse("not_your_turn", "the Initiative player moves first [L716-L759]")


def _reserve_move(out: _Out, command: ReserveMove, side: str) -> None:
    state = out.state
    _reserve_turn(state, side)
    if command.unit in state.jumped and state.units[command.unit].side == side:
        _jump_back(out, state.units[command.unit], command, side)
        return
    u = _present(_own(state, command.unit, side))
    order = state.secret.get(side, {}).get(u.uid)
    if order is not None and order.token.kind is not TokenKind.BLUFF:
        raise refuse("had_order", f"{u.uid} had an Order token: no Reserve move [L703-L708]")
    if u.uid in state.activated or u.uid in state.acted:
        raise refuse("activated", f"{u.uid} has already acted this turn")
    if command.demolish is not None:
        _demolisher_problem(state, u, command.demolish, command.path, command.embark)
    if command.path or command.embark is None:
        path = _placements(u, command.path)
        cost = _check_move(state, u, path)
        out.emit(UnitMoved(u.uid, tuple(_step_of(p) for p in path), cost, reserve=True))
    if command.embark is not None:
        _embark(out, u.uid, command.embark)
    if command.demolish is not None:
        _demolisher(out, u.uid, command.demolish)


def _holders(state: BattleState) -> dict[str, str | None]:
    assert state.scenario is not None
    positions: dict[str, list[Square]] = {s.id: [] for s in state.scenario.sides}
    for u in state.on_board():
        if u.placement is not None:
            positions[u.side].extend(u.placement.squares)
    return {o.id: objective_holder(o, positions) for o in state.scenario.objectives}


def _end_reserve(out: _Out, side: str) -> None:
    _reserve_turn(out.state, side)
    for uid in waiting_jumpers(out.state, side):  # not back: destroyed (rulings 132)
        me = out.state.units[uid]
        out.emit(StepsTaken(uid, 0, 0, str(me.status.face), me.status.hit_points, False, True))
    out.emit(ReserveEnded(side))
    state = out.state
    assert state.turn is not None
    assert state.scenario is not None
    if state.reserve_done != set(state.turn.sides()):
        return
    unsuppressed = tuple(sorted(u.uid for u in state.units.values() if u.suppressed > 0))
    verdict = end_of_turn(
        state.scenario, state.turn.turn, tuple(state.groups.values()), _holders(state)
    )
    # the Initiative passes, unless its holder used Scrier's Gaze this turn [L3017-L3023]
    kept = state.keep_initiative == state.turn.initiative
    following = state.turn.initiative if kept else state.turn.other
    out.emit(TurnEnded(state.turn.turn, unsuppressed, dict(verdict.vp), following))
    if verdict.outcome is not Outcome.PLAY_ON:
        out.emit(BattleEnded(verdict.winner, verdict.reason, dict(verdict.vp)))
        return
    _start_turn(out, state.turn.turn + 1, following)


def _confirm(out: _Out, seat: str) -> None:
    _stage(out.state, Stage.ENDED)
    if seat in out.state.confirmed:
        raise refuse("already_confirmed", "you have confirmed the result")
    out.emit(ResultConfirmed(seat))


# -- the rule book ------------------------------------------------------------------------------


def _acting(state: BattleState, command: Tagged) -> str:
    """The unit a command acts with (a declared move's, for the answer to its En Alerte)."""
    unit = getattr(command, "unit", "")
    if isinstance(unit, str) and unit:
        return unit
    return state.pending.unit if state.pending is not None else ""


_NO_OFFERS = (
    CreateBattle,
    DeployUnit,
    EndDeployment,
    PlaceOrders,
    DrawCards,
    MaintainPowers,
    ConfirmResult,
)
MAX_NAME = 200  # a group's or an option's id in a command


def _offers_for(
    state: BattleState, command: Tagged, answers: tuple[RerollAnswer, ...]
) -> Offers | None:
    """What watches the command's rolls for a side that may reroll them (rulings 153)."""
    if state.stage is not Stage.BATTLE or isinstance(command, _NO_OFFERS):
        return None
    return Offers(answers, _acting(state, command))


def _offered(
    state: BattleState,
    command: Tagged,
    actor: str,
    pause: Pause,
    originals: dict[int, int],
    dice_seeded: bool,
    answers: tuple[RerollAnswer, ...],
    roll: Roll,
) -> RerollOffered:
    """The offer of the roll ``pause`` stopped at. The command is first decided to its end
    with that roll kept and made-up dice after it: a command the rules refuse after the roll
    is refused now, never left waiting for an answer it could not take."""
    probe = ScriptRoller(pause.dice, originals, Roller(0), True)
    _decide(state, command, actor, probe, None)
    return RerollOffered(
        COMMAND_CODEC.encode(command),
        actor,
        pause.dice,
        tuple(sorted((i, v) for i, v in originals.items() if i < len(pause.dice))),
        dice_seeded,
        answers,
        pause.offer.side,
        pause.offer.at,
        EVENT_CODEC.encode(pause.offer.event),
        roll,
    )


def _answer(
    state: BattleState, command: Reroll | KeepRoll, actor: str, dice: Roller
) -> Decision[BattleState]:
    """The side asked rerolls the roll offered (one marker, its new dice drawn first) or
    keeps it; the paused command is then decided again from the same state with its dice read
    back, and goes on past the roll, or stops at the next roll offered (rulings 153-155)."""
    p = state.reroll
    if p is None:
        raise refuse("no_reroll", "no roll waits for a reroll")
    side = state.side_of(actor)
    if side != p.side:
        raise refuse(
            "not_asked", "the other side answers about this roll", kind=RefusalKind.FORBIDDEN
        )
    original = COMMAND_CODEC.decode(p.command)
    script, originals = list(p.dice), dict(p.originals)
    group = option = ""
    values: tuple[int, ...] = ()
    if isinstance(command, Reroll):
        if len(command.group) > MAX_NAME or len(command.option) > MAX_NAME:
            raise refuse("bad_option", "that name is too long", kind=RefusalKind.INPUT)
        shown = EVENT_CODEC.decode(p.event)
        choices = reroll_choices(state, side, involved_units(shown, _acting(state, original)))
        if not any(c.group == command.group and c.option == command.option for c in choices):
            raise refuse(
                "no_such_reroll",
                f"{command.option!r} of {command.group!r} has no marker left that may reroll "
                "this roll",
                option=command.option,
            )
        label = f"reroll with {command.option}"
        values = tuple(dice.d6(label, stage="reroll") for _ in p.at)
        for i, v in zip(p.at, values, strict=True):
            originals.setdefault(i, script[i])
            script[i] = v
        group, option = command.group, command.option
    answer = RerollAnswered(side, p.at[0], group, option, values, Roll(dice.seed, ()))
    answers = (*p.answers, RerollAnswer(p.at[0], side, bool(option)))
    after = evolve(state, answer)
    roller = ScriptRoller(script, originals, dice, p.seeded)
    try:
        decision = _decide(after, original, p.actor, roller, _offers_for(after, original, answers))
    except Pause as pause:
        answer = replace(answer, roll=take_roll(dice, 0))
        is_seeded = p.seeded and (not dice.records or dice.seed is not None)
        offered = _offered(
            after, original, p.actor, pause, originals, is_seeded, answers, Roll(dice.seed, ())
        )
        return Decision((Emitted(answer), Emitted(offered)), evolve(after, offered))
    answer = replace(answer, roll=take_roll(dice, 0))
    return Decision((Emitted(answer), *decision.events), decision.state)


def _decline_power(out: _Out, side: str) -> None:
    again = out.state.again
    if again is None:
        raise refuse("no_power_again", "no power waits to be used again")
    _own(out.state, again[0], side)
    out.emit(PowerAgainDeclined(*again))


def decide(state: BattleState, command: Tagged, actor: str, dice: Roller) -> Decision[BattleState]:
    if actor not in SEATS:
        raise refuse("bad_seat", "only seats A and B act", kind=RefusalKind.FORBIDDEN)
    if isinstance(command, Reroll | KeepRoll):
        return _answer(state, command, actor, dice)
    if state.reroll is not None:
        raise refuse(
            "waiting_reroll",
            "a roll waits for the answer of the side asked: reroll it or keep it",
            side=state.reroll.side,
        )
    try:
        return _decide(state, command, actor, dice, _offers_for(state, command, ()))
    except Pause as pause:
        offered = _offered(state, command, actor, pause, {}, seeded(dice), (), take_roll(dice, 0))
        return Decision((Emitted(offered),), evolve(state, offered))


def _decide(
    state: BattleState, command: Tagged, actor: str, dice: Roller, offers: Offers | None
) -> Decision[BattleState]:
    out = _Out(state, dice)
    out.command = command
    out.offers = offers
    if isinstance(command, CreateBattle):
        _create(out, command)
        return Decision(tuple(out.events), out.state)
    if state.scenario is None:
        raise refuse("no_battle", "set the battle up first")
    side = state.side_of(actor)
    if isinstance(command, ConfirmResult):
        _confirm(out, actor)
        return Decision(tuple(out.events), out.state)
    if state.stage is Stage.ENDED:
        raise refuse("battle_over", "the battle is over")
    if state.scouting and not isinstance(command, ScoutMove | EndScouting):
        raise refuse("scouting", "the Scout moves come first: move your scouts or end them")
    if state.placing is not None and not isinstance(command, ChooseSquare):
        raise refuse("waiting_square", "a unit forced to move waits for its owner's square first")
    if state.pending is not None and not isinstance(command, Overwatch | PassOverwatch):
        raise refuse(
            "waiting_overwatch", "a declared move waits for the other side's En Alerte first"
        )
    if state.again is not None and not (
        isinstance(command, DeclinePower)
        or (isinstance(command, Manifest) and (command.unit, command.power) == state.again)
    ):
        raise refuse(
            "waiting_power_again",
            "the Librarian may use his power again first: manifest it again or decline",
            unit=state.again[0],
        )
    match command:
        case DeployUnit():
            _deploy(out, command, side)
        case DeployAboard():
            _deploy_aboard(out, command, side)
        case EndDeployment():
            _end_deployment(out, side)
        case PlaceOrders():
            _place_orders(out, command, side, actor)
        case Move():
            _move(out, command, side)
            if out.state.pending is None:
                spot_after_move(out, command.unit)  # [L3156-L3157]
            _after_activation(out)
        case Shoot():
            _shoot(out, command, side)
            _after_activation(out)
        case Assault():
            _assault(out, command, side)
            if out.state.pending is None and out.state.placing is None:
                spot_after_move(out, command.unit)
            _after_activation(out)
        case ChooseSquare():
            placing = state.placing
            _choose_square(out, command, side)
            if placing is not None and placing.why != OUT_OF_WRECK:
                spot_after_move(out, placing.attacker)  # the assault's move, now done [L3156-L3157]
            _after_activation(out)
        case Hold():
            _hold(out, command, side)
            _after_activation(out)
        case DoubleShot():
            _double_shot(out, command, side)
            _after_activation(out)
        case Burst():
            _burst(out, command, side)
            _after_activation(out)
        case Snipe():
            _snipe(out, command, side)
            _after_activation(out)
        case VehicleFire():
            _vehicle_fire(out, command, side)
            _after_activation(out)
        case TemplateFire():
            _template_fire(out, command, side)
            _after_activation(out)
        case Flame():
            _flame(out, command, side)
            _after_activation(out)
        case Grenade():
            _throw(out, command, side)
            _after_activation(out)
        case Kombi():
            _kombi(out, command, side)
            _after_activation(out)
        case Demolish():
            _demolish(out, command, side)
            _after_activation(out)
        case Manifest():
            _manifest(out, command, side)
            _after_activation(out)
        case ScoutMove():
            _scout_move(out, command, side)
        case EndScouting():
            _end_scouting(out, side)
        case Overwatch():
            _overwatch(out, command, side)
            if out.state.placing is None:
                spot_after_move(out, state.pending.unit)  # type: ignore[union-attr]
        case PassOverwatch():
            _pass_overwatch(out, side)
            if out.state.placing is None:
                spot_after_move(out, state.pending.unit)  # type: ignore[union-attr]
        case ReserveMove():
            _reserve_move(out, command, side)
            spot_after_move(out, command.unit)
        case EndReserve():
            _end_reserve(out, side)
        case DrawCards():
            draw_cards(out, command, side, actor)
        case MaintainPowers():
            maintain_powers(out, command, side)
        case ReadyRepair():
            ready_repair(out, command, side)
        case ReadyEquipment():
            ready_equipment(out, command, side)
        case PlayCard():
            play_card(out, command, side)
        case DeclinePower():
            _decline_power(out, side)
            _after_activation(out)
        case _:
            raise refuse(
                "unknown_command",
                f"{command.kind!r} is not a battle command",
                kind=RefusalKind.INPUT,
            )
    spend_cards(out, 0)
    spend_gear(out)
    return Decision(tuple(out.events), out.state)


class BlackReachRuleBook:
    """The Black Reach battle's rule book for :class:`app.engine.match.log.Match`."""

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


RULE_BOOK = BlackReachRuleBook()
