"""Per-seat views and legal actions of a PEN battle (nothing is secret in PEN: the views of
the two seats differ only in what each may do)."""

from __future__ import annotations

from collections.abc import Mapping

from app.engine.errors import DiceExhausted
from app.engine.match.codec import JsonObject
from app.engine.match.errors import Refusal
from app.engine.match.events import Viewer
from app.engine.pen.battle.commands import (
    COMMAND_CODEC,
    AnswerChallenge,
    Challenge,
    ChooseFirst,
    Command,
    ConfirmResult,
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
    ReportControl,
    Retreat,
    RollOff,
    StartTurn,
)
from app.engine.pen.battle.rules import (
    all_reported,
    challengeable,
    decide,
    fast_over_12,
    fire_points_left,
    may_disengage,
    may_go_on_alert,
    may_hit_and_run,
    may_retreat,
    move_limits,
    objectives,
)
from app.engine.pen.battle.setup import SEATS
from app.engine.pen.battle.state import (
    BattleState,
    Phase,
    Place,
    ReserveMode,
    Speed,
    Stage,
    UnitState,
)
from app.engine.roller import Roller

__all__ = ["legal_actions", "render", "tokens"]


def tokens(state: BattleState, u: UnitState) -> list[str]:
    """The squad's state tokens of the aide-memoire [L1483-L1494] the battle tracks, with the
    ones pen.md §7.2 adds (locked, charged, embarked, in reserve, immobilised...)."""
    movement = u.distance_token if u.on_table and u.activated else None
    if movement is None and u.on_table and u.activated and u.speed is Speed.RAPID:
        # a rapid move of 12 ps or less (an emergency disembark out of a fast transport
        # [L309], infantry's 9 ps): no M1/M2 token, yet no charge and snap fire [L1049]
        movement = "rapid"
    flags = (
        (movement or "", movement is not None),
        ("gone_to_ground", state.gone_to_ground(u)),  # AT
        ("alert", u.alert),  # EA [L959]
        ("stopped", u.stopped),  # alert fire: no shooting, no charge this turn [L966]
        ("retreating", u.retreating),  # RE
        ("poisoned", u.poisoned),  # PO
        ("regrouped", u.regrouped),
        ("locked", bool(u.locked)),
        ("charged", u.charged),
        ("rammed", u.rammed),
        ("out_of_control", u.out_of_control),  # HC
        ("embarked", u.embarked),
        ("in_reserve", u.place in (Place.RESERVE, Place.AVAILABLE)),
        ("shaken", u.shaken),  # SE
        ("stunned", u.stunned),  # PS
        ("weapons_damaged", u.weapons_damaged),  # AE
        ("reduced_mobility", u.reduced_mobility),  # MR
        ("immobilised", u.immobilised),
        ("damaged", u.damage_bonus > 0),  # VE
        ("destroyed", u.is_vehicle and u.place is Place.DESTROYED),  # VD
    )
    return sorted(t for t, on in flags if on)


def _weapons(state: BattleState, u: UnitState) -> list[JsonObject]:
    """The squad's named weapons, for the commands that name one (``shoot`` a ranged weapon,
    ``fight``'s ``weapons`` a close-combat one)."""
    out: list[JsonObject] = []
    for w in state.unit_spec(u.id).weapons:
        kind = w.profile.get("kind") if isinstance(w.profile, Mapping) else None
        out.append({"name": w.name, "kind": "melee" if kind == "melee" else "ranged"})
    return out


def _victory(state: BattleState) -> JsonObject | None:
    """The victory conditions of §3.2: the objectives and zones to report at the end, what
    each is worth (X = points / 10 [L821], also the draw threshold [L822]) and whether kill
    points count [L818-L820]."""
    setup = state.setup
    if setup is None:
        return None
    return {
        "points_limit": setup.points_limit,
        "objectives": objectives(state),
        "objective_value": setup.objective_value,
        "kill_points": setup.kill_points,
    }


def render(state: BattleState, viewer: Viewer) -> JsonObject:
    units = [
        {
            "id": u.id,
            "name": state.unit_spec(u.id).name,
            "weapons": _weapons(state, u),
            "seat": u.seat,
            "place": str(u.place),
            "models": u.models,
            "models_start": u.models_start,
            "wounds": u.wounds,  # W per model (1 for a vehicle), for what wounds_taken leaves
            "wounds_taken": u.wounds_taken,
            "hull_points": u.hull_points,
            "hull_points_lost": u.hp_lost,
            "reserve": None if u.reserve is None else str(u.reserve),
            "speed": None if u.speed is None else str(u.speed),
            "moved": u.moved,
            "moves": dict(zip(("normal", "rapid"), move_limits(state, u), strict=True)),
            "tokens": tokens(state, u),
            "locked_with": sorted(u.locked),
            "transport": u.transport,
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
        "victory": _victory(state),
        "confirm_result": state.setup is not None and state.setup.confirm_result,
        "confirmed": sorted(state.confirmed),
    }


def stage_is_assault(state: BattleState) -> bool:
    return state.stage is Stage.BATTLE and state.phase is Phase.ASSAULT


def _cmd(command: Command) -> JsonObject:
    return {"command": COMMAND_CODEC.encode(command)}


def legal_actions(state: BattleState, seat: str) -> list[JsonObject]:
    """Complete commands this seat may send now (commands that need a distance stated on the
    table are listed with ``needs``)."""
    if seat not in SEATS:
        return []
    out: list[JsonObject] = []
    if stage_is_assault(state):  # the winners of either side consolidate [L1260]
        out.extend(
            {"command": {"type": "consolidate", "unit": u.id}, "needs": ["inches"]}
            for u in state.seat_units(seat)
            if u.fought and not u.locked and not u.consolidated and u.on_table and not u.retreating
        )
        # the loser that passed its test, or either side after a draw [L1244], [L1254]
        out.extend(_cmd(Retreat(u.id)) for u in state.seat_units(seat) if may_retreat(state, u))
        # a challenged character's answer [L1226-L1228]
        out.extend(
            _cmd(AnswerChallenge(u.id, accept))
            for u in state.seat_units(seat)
            if u.challenged_by
            for accept in (True, False)
        )
        # Hit & Run: leave between two Initiative steps, said before the fight [L416]
        out.extend(
            _cmd(HitAndRun(u.id)) for u in state.seat_units(seat) if may_hit_and_run(state, u)
        )
        # Désengagement, Hit & Run: a normal move out of the combat [L392], [L416]
        out.extend(
            {"command": {"type": Disengage.kind, "unit": u.id}, "needs": ["inches"]}
            for u in state.seat_units(seat)
            if may_disengage(state, u)
        )
    stage = state.stage
    mine = state.seat_units(seat)
    if stage is Stage.RESERVES and seat not in state.ready:
        for u in mine:
            if u.place is Place.UNDEPLOYED:
                out.append(_cmd(DeclareReserve(u.id, ReserveMode.STANDARD)))
        out.extend(_cmd(Embark(u, t)) for u, t in _reserve_boarding(state, mine))
        out.append(_cmd(EndStep()))
    elif stage is Stage.ROLL_OFF:
        out.append(_cmd(RollOff()))
    elif stage is Stage.CHOOSE and state.roll_off_winner == seat:
        out.extend(_cmd(ChooseFirst(s)) for s in SEATS)
    elif stage in (Stage.DEPLOY, Stage.INFILTRATE, Stage.SCOUT) and seat not in state.ready:
        # the squads this seat may deploy now, and the end of the step only when the battle
        # takes it: not for the second deployer while the first deploys [L832], nor with
        # squads still to deploy
        out.extend(_placements(state, seat, mine))
        if _accepted(state, EndStep(), seat):
            out.append(_cmd(EndStep()))
    elif stage is Stage.SCORING:
        confirming = state.setup is not None and state.setup.confirm_result
        # with a confirmation, a reported objective may be reported again (a correction,
        # which asks both players to confirm again)
        out.extend(
            _cmd(ReportControl(o, s))
            for o in objectives(state)
            for s in ("", *SEATS)
            if o not in state.control or (confirming and state.control[o] != (s or None))
        )
        if confirming and all_reported(state) and seat not in state.confirmed:
            out.append(_cmd(ConfirmResult()))
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
                out.extend(_alert_fire(mine))
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
                if u.on_table
                and not u.activated
                and not u.out_of_control
                and (not state.alternation or state.playing in (None, u.id))
            )
            out.extend(
                {"command": {"type": "ram", "unit": u.id}, "needs": ["inches", "targets"]}
                for u in mine
                if u.on_table and not u.activated and u.out_of_control and not u.immobilised
            )
            out.extend(_disembarks(state, mine))
            out.extend(_fire_point_shots(state, mine))
            out.extend(_cmd(GoOnAlert(u.id)) for u in mine if may_go_on_alert(state, u))
        if state.phase is Phase.ASSAULT:
            out.extend(_cmd(Challenge(u.id, e)) for u in mine for e in challengeable(state, u))
            for u in mine:
                for enemy in sorted(u.locked):
                    if not u.fought and not state.units[enemy].fought:
                        out.append(_cmd(Fight(u.id, enemy)))
            out.extend(
                {"command": {"type": "charge", "unit": u.id}, "needs": ["target", "distance"]}
                for u in mine
                if u.on_table and not u.locked and not u.charged and not u.is_vehicle
            )
        out.append(_cmd(EndPhase()))
    return out


def _accepted(state: BattleState, command: Command, seat: str) -> bool:
    """Whether the battle takes ``command`` from ``seat`` now (a command that rolls is taken:
    the probe has no dice)."""
    try:
        decide(state, command, seat, Roller.from_values(()))
    except DiceExhausted:
        return True
    except Refusal:
        return False
    return True


def _placements(state: BattleState, seat: str, mine: list[UnitState]) -> list[JsonObject]:
    """The squads the battle lets ``seat`` deploy now: in its deployment, or an infiltrator
    in its own step [L422]. (Deploying a squad inside a transport already on the table
    [L276] needs the transport named: the page asks it, the Dynamics turn lists each.)"""
    if state.stage not in (Stage.DEPLOY, Stage.INFILTRATE):
        return []
    return [
        _cmd(Deploy(u.id))
        for u in sorted(mine, key=lambda u: u.id)
        if u.place is Place.UNDEPLOYED and _accepted(state, Deploy(u.id), seat)
    ]


def _reserve_boarding(state: BattleState, mine: list[UnitState]) -> list[tuple[str, str]]:
    """(squad, transport): a squad kept in reserve may start inside a transport kept in
    reserve, within its capacity (pen rulings B31)."""
    out: list[tuple[str, str]] = []
    for t in sorted(mine, key=lambda u: u.id):
        capacity = state.unit_spec(t.id).capacity
        if not capacity or t.place is not Place.RESERVE:
            continue
        aboard = sum(u.models for u in state.units.values() if u.transport == t.id and u.alive)
        out.extend(
            (u.id, t.id)
            for u in sorted(mine, key=lambda u: u.id)
            if not u.is_vehicle
            and u.place in (Place.UNDEPLOYED, Place.RESERVE)
            and aboard + u.models <= capacity
        )
    return out


def _disembarks(state: BattleState, mine: list[UnitState]) -> list[JsonObject]:
    """Passengers of a transport on the table get out once a turn [L277]; out of a fast
    transport that moved more than 12 ps only by an emergency disembark [L309]."""
    out: list[JsonObject] = []
    for u in sorted(mine, key=lambda u: u.id):
        if not u.embarked or u.transferred or u.shot or u.transport is None:
            continue
        carrier = state.units[u.transport]
        if carrier.on_table:
            out.append(_cmd(Disembark(u.id, emergency=fast_over_12(state, carrier))))
    return out


def _fire_point_shots(state: BattleState, mine: list[UnitState]) -> list[JsonObject]:
    """Passengers shooting from their transport's fire points once it has been played this
    turn [L282], [L295] (pen rulings B32); ``fire_points``: how many models may still fire."""
    out: list[JsonObject] = []
    for u in sorted(mine, key=lambda u: u.id):
        if not u.embarked or u.transferred or u.activated or u.transport is None:
            continue
        carrier = state.units[u.transport]
        if not carrier.on_table or not carrier.activated:
            continue
        if state.alternation and state.playing != carrier.id:
            continue
        left = min(fire_points_left(state, carrier), u.models)
        if left > 0:
            out.append(
                {
                    "command": {"type": "shoot", "unit": u.id},
                    "needs": ["target", "weapon", "range_inches", "half_range", "cover", "facing"],
                    "fire_points": left,
                }
            )
    return out


def _alert_fire(mine: list[UnitState]) -> list[JsonObject]:
    """An alert squad's shooting phase in the enemy's movement phase [L959] (``alert``: it
    shoots out of turn), then its end, which runs its targets' tests (pen rulings B35)."""
    out: list[JsonObject] = []
    for u in sorted(mine, key=lambda u: u.id):
        if not u.alert or not u.on_table:
            continue
        out.append(
            {
                "command": {"type": "shoot", "unit": u.id},
                "needs": ["target", "weapon", "range_inches", "half_range", "cover", "facing"],
                "alert": True,
            }
        )
        if u.shot:
            out.append(_cmd(EndActivation(u.id)))
    return out
