"""The decision builder, the checks every command shares, and the flow of the battle.

A :class:`Builder` collects the events a command produces and evolves its own copy of the state
as it goes, so later checks see the effect of earlier events. The flow functions move the
match through its set-up steps and the battle's rounds, turns and phases, emitting the
automatic events at each boundary: CP at the start of every Command phase [L770-771],
Battle-shock ending at the start of its owner's Command phase [L791-792], objective control at
the end of every phase [L4599-4602], mission scoring, the end of the battle and its winner
[L4799-4810].
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from app.engine.match.dice import Roll, take_roll
from app.engine.match.events import Emitted, Event
from app.engine.match.turns import Boundary
from app.engine.roller import Roller
from app.engine.wh40k10e.battle.errors import Code, refuse
from app.engine.wh40k10e.battle.events import (
    BattleEnded,
    BattleShockCleared,
    CommandPointsGained,
    DeadlyDemiseRolled,
    ExtraRoundRolled,
    ObjectiveControlChanged,
    PhaseEnded,
    PhaseStarted,
    RoundEnded,
    RoundStarted,
    SetupStepStarted,
    TransportDestroyed,
    TurnEnded,
    TurnStarted,
    UnitsDestroyed,
    VictoryPointsScored,
)
from app.engine.wh40k10e.battle.evolve import apply_damage, evolve
from app.engine.wh40k10e.battle.objectives import control, control_levels, scoring_for
from app.engine.wh40k10e.battle.setup import Ability, Seat, other
from app.engine.wh40k10e.battle.state import (
    TURN,
    BattleState,
    DieLoss,
    Location,
    ModelDamage,
    Phase,
    ReserveKind,
    Result,
    Stage,
    Step,
    UnitState,
)

__all__ = [
    "FAILS_AT",
    "Builder",
    "FeelNoPain",
    "advance_setup",
    "allocate",
    "casualty_slots",
    "end_battle",
    "end_phase",
    "failed_test_loss",
    "finish",
    "need_active",
    "need_alive",
    "need_battle",
    "need_enemy",
    "need_own",
    "need_phase",
    "need_unit",
    "no_pending",
    "roll_losses",
    "scout_units",
    "seat_of",
    "start_phase",
]


class Builder:
    """Events decided so far, and the state after them."""

    def __init__(self, state: BattleState, actor: Seat, roller: Roller) -> None:
        self.state = state
        self.actor = actor
        self.roller = roller
        self.out: list[Emitted] = []

    def emit(self, event: Event, audience: tuple[str, ...] | None = None) -> None:
        self.out.append(Emitted(event, audience))
        self.state = evolve(self.state, event)

    def roll(self, count: int, sides: int, label: str) -> Roll:
        start = len(self.roller.records)
        for _ in range(count):
            self.roller.roll(sides, label)
        return take_roll(self.roller, start)

    def feel_no_pain(self) -> FeelNoPain:
        """A Feel No Pain roller for the wounds this command is about to inflict."""
        return FeelNoPain(self)


class FeelNoPain:
    """Rolls Feel No Pain [L1857-1869] for each wound a model of a part with the ability would
    lose (a mortal wound the match resolves itself), and keeps the dice as one :class:`Roll`."""

    def __init__(self, b: Builder) -> None:
        self._b = b
        self._start = len(b.roller.records)
        self._rolled = False

    def __call__(self, state: BattleState, part: str) -> bool:
        """Whether the wound part ``part`` would lose is not lost."""
        fnp = state.specs[part].feel_no_pain
        if fnp is None:
            return False
        self._rolled = True
        value = self._b.roller.roll(6, f"feel no pain {fnp}+ ({part})")
        return value >= fnp

    @property
    def roll(self) -> Roll | None:
        """The Feel No Pain dice rolled (``None``: none was)."""
        return take_roll(self._b.roller, self._start) if self._rolled else None


Ignores = Callable[[BattleState, str], bool]
"""(state, part) -> whether a wound part would lose is ignored (Feel No Pain)."""


# -- shared checks ---------------------------------------------------------------------------


def seat_of(actor: str) -> Seat:
    try:
        return Seat(actor)
    except ValueError:
        raise refuse(Code.NOT_A_PLAYER, f"{actor!r} is not a player of this match") from None


def need_unit(b: Builder, unit_id: str) -> UnitState:
    try:
        return b.state.units[unit_id]
    except KeyError:
        raise refuse(Code.UNKNOWN_UNIT, f"there is no unit {unit_id!r} in this match") from None


def need_own(b: Builder, unit_id: str) -> UnitState:
    u = need_unit(b, unit_id)
    if u.owner is not b.actor:
        raise refuse(Code.NOT_YOUR_UNIT, f"{_name(b, unit_id)} belongs to your opponent")
    return u


def need_enemy(b: Builder, unit_id: str) -> UnitState:
    u = need_unit(b, unit_id)
    if u.owner is b.actor:
        raise refuse(Code.BAD_TARGET, f"{_name(b, unit_id)} is one of your own units")
    return u


def need_alive(b: Builder, unit_id: str, *, battlefield: bool = True) -> None:
    u = b.state.units[unit_id]
    if not u.alive:
        raise refuse(Code.UNIT_DESTROYED, f"{_name(b, unit_id)} has been destroyed")
    if battlefield and u.location is not Location.BATTLEFIELD:
        raise refuse(
            Code.NOT_ON_BATTLEFIELD, f"{_name(b, unit_id)} is not on the battlefield ({u.location})"
        )


def _name(b: Builder, unit_id: str) -> str:
    spec = b.state.specs.get(unit_id)
    return f"{spec.name} ({unit_id})" if spec is not None else unit_id


def need_battle(b: Builder) -> None:
    if b.state.stage is Stage.ENDED:
        raise refuse(Code.BATTLE_OVER, "the battle is over")
    if b.state.stage is not Stage.BATTLE:
        raise refuse(Code.WRONG_STAGE, f"the battle has not started (set-up: {b.state.stage})")


def need_active(b: Builder) -> None:
    need_battle(b)
    if b.state.active is not b.actor:
        raise refuse(Code.NOT_YOUR_TURN, "it is your opponent's turn")


def need_phase(b: Builder, phase: Phase, step: Step | None = None) -> None:
    need_battle(b)
    if b.state.phase is not phase:
        raise refuse(
            Code.WRONG_PHASE, f"this is done in the {phase} phase, not the {b.state.phase}"
        )
    if step is not None and b.state.step is not step:
        raise refuse(Code.WRONG_STEP, f"this is done in the {step} step, not the {b.state.step}")


def no_pending(b: Builder, *, charge: bool = True, window: bool = True) -> None:
    """Refuse while something must be finished first (forced disembark, charge, window)."""
    s = b.state
    if s.demises:
        unit = s.demises[0]
        raise refuse(
            Code.DEADLY_DEMISE_PENDING,
            f"first resolve the Deadly Demise of {_name(b, unit)}: its controller names the "
            'units within 6"',
            unit=unit,
        )
    stranded = [u.id for u in s.units.values() if u.transport_destroyed and u.alive]
    if stranded:
        raise refuse(
            Code.FORCED_DISEMBARK_PENDING,
            "units must first disembark from their destroyed Transport",
            units=stranded,
        )
    if charge and s.charge is not None:
        raise refuse(
            Code.CHARGE_IN_PROGRESS,
            f"first finish the charge of {_name(b, s.charge.unit)}",
            unit=s.charge.unit,
        )
    if window and s.window is not None:
        raise refuse(
            Code.WAITING_FOR_REACTION,
            "waiting for the other player to use Rapid Ingress or pass",
            seat=str(s.window),
        )


# -- damage helpers --------------------------------------------------------------------------


def _order(state: BattleState, group: tuple[str, ...], character_last: bool) -> list[str]:
    if not character_last:
        return list(group)
    plain = [i for i in group if not state.specs[i].has("CHARACTER")]
    return plain + [i for i in group if i not in plain]


def allocate(
    state: BattleState,
    target: str,
    damage: Iterable[int],
    mortal_wounds: int = 0,
    ignores: Ignores | None = None,
) -> list[ModelDamage]:
    """Allocate damage by the rules: each attack to a model already wounded, else any model
    (the first alive slot), Bodyguard models before the Leader's CHARACTER models
    ([L1704-1707], [L3238-3246]); normal damage is lost beyond the model, mortal wounds carry
    over ([L1788-1790], [L1816-1824]); ``ignores`` rolls Feel No Pain for each mortal wound
    [L1857-1869]."""
    wounds = {i: list(state.units[i].wounds) for i in state.group(target)}
    order = _order(state, tuple(wounds), character_last=True)
    out: list[ModelDamage] = []

    def pick() -> tuple[str, int] | None:
        candidates = [i for i in order if any(w > 0 for w in wounds[i])]
        if not candidates:
            return None
        bodyguard_alive = [i for i in candidates if not state.specs[i].has("CHARACTER")]
        pool = bodyguard_alive or candidates
        for i in pool:
            spec = state.specs[i]
            for slot, w in enumerate(wounds[i]):
                if 0 < w < spec.wounds_of(slot):
                    return i, slot
        i = pool[0]
        return i, next(slot for slot, w in enumerate(wounds[i]) if w > 0)

    for d in damage:
        if d <= 0:
            continue
        where = pick()
        if where is None:
            break
        unit, slot = where
        dealt = min(d, wounds[unit][slot])
        wounds[unit][slot] -= dealt
        out.append(ModelDamage(unit, slot, dealt))
    for _ in range(mortal_wounds):
        where = pick()
        if where is None:
            break
        unit, slot = where
        if ignores is not None and ignores(state, unit):
            continue
        wounds[unit][slot] -= 1
        if out and out[-1].unit == unit and out[-1].model == slot:
            out[-1] = ModelDamage(unit, slot, out[-1].damage + 1)
        else:
            out.append(ModelDamage(unit, slot, 1))
    return out


def casualty_slots(
    state: BattleState,
    unit: str,
    count: int,
    chosen: tuple[int, ...] = (),
    on_unit: str | None = None,
) -> list[ModelDamage]:
    """Remove ``count`` models of a unit (its controller's choice: ``chosen`` slots of
    ``on_unit``, else a wounded model first, Bodyguard models before the Leader)."""
    out: list[ModelDamage] = []
    group = state.group(unit)
    target_units = [on_unit] if on_unit is not None else _order(state, group, character_last=True)
    wounds = {i: list(state.units[i].wounds) for i in group}
    picks = list(chosen)
    for _ in range(count):
        slot_unit: tuple[str, int] | None = None
        while picks and slot_unit is None:
            s = picks.pop(0)
            u0 = target_units[0]
            if 0 <= s < len(wounds[u0]) and wounds[u0][s] > 0:
                slot_unit = (u0, s)
        if slot_unit is None:
            alive = [(w, i, s) for i in target_units for s, w in enumerate(wounds[i]) if w > 0]
            if not alive:
                break
            # fewest wounds left first (a wounded model before an unharmed one with as many,
            # e.g. a Boss Nob on 1 before a Boy), in unit order, then slot order
            rank = {i: n for n, i in enumerate(target_units)}
            specs = state.specs
            alive.sort(key=lambda t: (t[0], t[0] >= specs[t[1]].wounds_of(t[2]), rank[t[1]], t[2]))
            _, i, s = alive[0]
            slot_unit = (i, s)
        i, s = slot_unit
        out.append(ModelDamage(i, s, wounds[i][s]))
        wounds[i][s] = 0
    return out


FAILS_AT = {"desperate_escape": 2, "hazardous": 1}  # a test die at or below this fails


def mortal_on(
    state: BattleState, unit: str, mortal: int, ignores: Ignores | None = None
) -> list[ModelDamage]:
    """Mortal wounds on one unit only (a CHARACTER of an Attached unit takes them itself,
    [L2289-2294]), carried over from model to model; ``ignores`` rolls Feel No Pain."""
    out: list[ModelDamage] = []
    wounds = list(state.units[unit].wounds)
    for _ in range(mortal):
        slot = next((i for i, w in enumerate(wounds) if w > 0), None)
        if slot is None:
            break
        if ignores is not None and ignores(state, unit):
            continue
        wounds[slot] -= 1
        if out and out[-1].model == slot:
            out[-1] = ModelDamage(unit, slot, out[-1].damage + 1)
        else:
            out.append(ModelDamage(unit, slot, 1))
    return out


def failed_test_loss(
    state: BattleState,
    unit: str,
    kind: str,
    on_unit: str | None = None,
    ignores: Ignores | None = None,
) -> list[ModelDamage]:
    """What one failed test costs: a model of your choice destroyed (Desperate Escape
    [L1023-1025]); for Hazardous, a bearer destroyed, or 3 mortal wounds if it is a CHARACTER,
    MONSTER or VEHICLE [L2282-2289]."""
    if kind == "hazardous":
        victim = on_unit or state.group(unit)[0]
        spec = state.specs[victim]
        if any(spec.has(k) for k in ("CHARACTER", "MONSTER", "VEHICLE")):
            return mortal_on(state, victim, 3, ignores)
        return casualty_slots(state, unit, 1, on_unit=victim)
    return casualty_slots(state, unit, 1)


def roll_losses(
    state: BattleState,
    unit: str,
    kind: str,
    values: tuple[int, ...],
    *,
    on_unit: str | None = None,
    chosen: tuple[int, ...] = (),
    ignores: Ignores | None = None,
) -> tuple[DieLoss, ...]:
    """The loss caused by every failed die of a test, applied one after the other."""
    losses: list[DieLoss] = []
    current = state
    picks = list(chosen)
    limit = FAILS_AT[kind]
    for i, v in enumerate(values):
        if v > limit:
            continue
        if kind == "desperate_escape" and picks:
            damage = tuple(casualty_slots(current, unit, 1, (picks.pop(0),)))
        else:
            damage = tuple(failed_test_loss(current, unit, kind, on_unit, ignores))
        if not damage:
            if ignores is not None and any(current.units[i].alive for i in current.group(unit)):
                continue  # every wound ignored (Feel No Pain)
            break
        losses.append(DieLoss(i, damage))
        current = apply_damage(current, damage)
    return tuple(losses)


# -- set-up flow -----------------------------------------------------------------------------


def scout_units(state: BattleState, seat: Seat) -> list[str]:
    """Units of ``seat`` that may still make a Scouts move [L3166-3198]."""
    out: list[str] = []
    for u in state.units_of(seat):
        if not state.on_battlefield(u.id) or u.scouted or u.bodyguard is not None:
            continue
        if state.all_have(u.id, Ability.SCOUTS):
            out.append(u.id)
            continue
        if state.specs[u.id].has("DEDICATED TRANSPORT"):
            riders = [r for r in state.units.values() if r.embarked_in == u.id and r.alive]
            if riders and all(Ability.SCOUTS in state.specs[r.id].abilities for r in riders):
                out.append(u.id)
    return out


def _first_placer(b: Builder, rule: str | None) -> Seat:
    s = b.state
    if rule is not None and rule.startswith("roll_off:"):
        return s.roll_offs[rule.split(":", 1)[1]]
    if rule == "defender" and s.attacker is not None:
        return other(s.attacker)
    if rule == "attacker" and s.attacker is not None:
        return s.attacker
    return Seat.A


def advance_setup(b: Builder) -> None:
    """Go to the next set-up step that has something to do, or start the battle."""
    assert b.state.setup is not None
    if b.state.narrative is not None:
        from app.engine.wh40k10e.battle.narrative_rules import advance

        advance(b)
        return
    mission = b.state.setup.mission
    index = b.state.setup_index + 1 if b.state.stage is not Stage.CREATED else 0
    while index < len(mission.sequence):
        step = mission.sequence[index]
        s = b.state
        if step.step == "roll_off":
            b.emit(SetupStepStarted(index, Stage.ROLL_OFF, purpose=step.purpose))
            return
        if step.step == "place_objectives":
            if any(m.placed_by is None and m.x is None for m in s.markers.values()):
                first = _first_placer(b, mission.objectives.first_placer)
                b.emit(SetupStepStarted(index, Stage.PLACE_OBJECTIVES, next_seat=first))
                return
        elif step.step == "declare_formations":
            b.emit(SetupStepStarted(index, Stage.DECLARE_FORMATIONS))
            return
        elif step.step == "deploy":
            first = _first_placer(b, mission.deployment.first)
            if not any(u.location is Location.TO_DEPLOY for u in s.units_of(first)):
                first = other(first)
            if any(u.location is Location.TO_DEPLOY for u in s.units.values()):
                b.emit(SetupStepStarted(index, Stage.DEPLOY, next_seat=first))
                return
        elif step.step == "scouts":
            assert s.first_player is not None
            for seat in (s.first_player, other(s.first_player)):
                if scout_units(s, seat):
                    b.emit(SetupStepStarted(index, Stage.SCOUTS, next_seat=seat))
                    return
        index += 1
    start_battle(b)


def next_scouts(b: Builder) -> None:
    """After a player finished its Scouts moves: the other player, or the next step."""
    s = b.state
    waiting = s.next_seat
    if waiting is not None and not s.players[waiting].scouts_done and scout_units(s, waiting):
        return
    advance_setup(b)


# -- battle flow -----------------------------------------------------------------------------


def start_battle(b: Builder) -> None:
    b.emit(RoundStarted(1))
    _start_turn(b, 1, 0)


def _start_turn(b: Builder, round_: int, turn: int) -> None:
    assert b.state.first_player is not None
    seat = b.state.first_player if turn == 0 else other(b.state.first_player)
    b.emit(TurnStarted(round_, turn, seat))
    if round_ == 1 and turn == 0:
        empty = tuple(u.id for u in b.state.units.values() if u.location is Location.HELD_BACK)
        if empty:  # "counts as destroyed in the first battle round" [L4346-4353]
            b.emit(UnitsDestroyed(empty, cause="empty_dedicated_transport"))
    start_phase(b, Phase.COMMAND)


def start_phase(b: Builder, phase: Phase) -> None:
    steps = TURN.phase(phase).steps
    b.emit(PhaseStarted(phase, Step(steps[0])))
    if phase is Phase.COMMAND:
        active = b.state.active
        assert active is not None
        for seat in (active, other(active)):  # both players gain 1 CP [L770-771]
            b.emit(CommandPointsGained(seat, 1, source="command_phase"))
        shocked = tuple(u.id for u in b.state.units_of(active) if u.battle_shocked)
        if shocked:  # until the start of your next Command phase [L791-792]
            b.emit(BattleShockCleared(shocked))


def _update_control(b: Builder) -> None:
    now = control(b.state)
    if any(b.state.markers[m].controller is not c for m, c in now.items()):
        b.emit(ObjectiveControlChanged(now, control_levels(b.state)))
        if b.state.setup is not None and b.state.setup.options.combat_zone is not None:
            from app.engine.wh40k10e.battle.narrative_zones import identify_objectives

            identify_objectives(b)


def _score(b: Builder, when: str) -> None:
    s = b.state
    assert s.setup is not None
    for rule in s.setup.mission.scoring:
        if rule.when != when or not rule.applies_in(s.round):
            continue
        seats = [s.active] if rule.who == "active_player" else [Seat.A, Seat.B]
        for seat in seats:
            assert seat is not None
            vp, markers = scoring_for(b.state, rule, seat)
            if vp:
                b.emit(VictoryPointsScored(seat, vp, rule.id, markers))


def end_phase(b: Builder) -> None:
    """End the current phase: control, scoring, then the next phase, turn or round."""
    s = b.state
    pos, phase, active = s.position, s.phase, s.active
    assert pos is not None
    assert phase is not None
    assert active is not None
    _update_control(b)
    if phase is Phase.COMMAND:
        _score(b, "end_of_command_phase")
    b.emit(PhaseEnded(phase))
    adv = TURN.next_phase(pos)
    if adv.crossed_boundary(Boundary.TURN):
        _score(b, "end_of_turn")
        if b.state.narrative is not None:
            from app.engine.wh40k10e.battle.narrative_rules import end_of_turn

            end_of_turn(b)
        b.emit(TurnEnded(active))
        if b.state.narrative is not None:
            from app.engine.wh40k10e.battle.narrative_rules import extra_turn_due

            if extra_turn_due(b.state, active):  # the Defender's new turn, same place
                _start_turn(b, pos.round, pos.turn)
                return
    if adv.crossed_boundary(Boundary.ROUND):
        _score(b, "end_of_battle_round")
        b.emit(RoundEnded(pos.round))
        if not _battle_goes_on(b, pos.round):
            end_battle(b, "rounds_complete")
            return
        b.emit(RoundStarted(adv.position.round))
    if adv.crossed_boundary(Boundary.TURN):
        _start_turn(b, adv.position.round, adv.position.turn)
    else:
        start_phase(b, Phase(adv.position.phase))


def _battle_goes_on(b: Builder, round_: int) -> bool:
    assert b.state.setup is not None
    assert b.state.first_player is not None
    length = b.state.setup.mission.length
    if round_ < length.rounds:
        return True
    for ext in length.extensions:
        if ext.after_round == round_:
            seat = (
                b.state.first_player
                if ext.roller == "first_player"
                else other(b.state.first_player)
            )
            roll = b.roll(1, 6, "battle length")
            goes_on = roll.total >= ext.continue_on
            b.emit(ExtraRoundRolled(round_, seat, roll, goes_on))
            return goes_on
    return False


def end_battle(b: Builder, reason: str, loser: Seat | None = None) -> None:
    """End the battle: Reserves not set up count as destroyed [L1154-1156], then the victor."""
    s = b.state
    assert s.setup is not None
    in_reserve: list[str] = []
    for u in s.units.values():
        if not u.alive:
            continue
        carrier = s.units[u.embarked_in] if u.embarked_in is not None else None
        if u.location is Location.RESERVES or (
            carrier is not None and carrier.location is Location.RESERVES
        ):
            in_reserve.append(u.id)
    if in_reserve:
        b.emit(UnitsDestroyed(tuple(in_reserve), cause="in_reserve_at_end"))
    s = b.state
    if s.narrative is not None and reason != "concession":
        from app.engine.wh40k10e.battle.narrative_rules import evaluate_end

        evaluate_end(b, reason, tuple(sorted(in_reserve)))
        return
    vp = {seat: s.players[seat].vp for seat in (Seat.A, Seat.B)}
    victory = s.setup.mission.victory if s.setup is not None else None
    winner: Seat | None
    if reason == "concession":
        assert loser is not None
        winner = other(loser)
    elif reason == "army_destroyed" and (
        victory is None or victory.army_destroyed == "opponent_wins"
    ):
        alive = [seat for seat in (Seat.A, Seat.B) if s.army_alive(seat)]
        winner = alive[0] if len(alive) == 1 else None  # both wiped at once: a draw
    else:
        winner = Seat.A if vp[Seat.A] > vp[Seat.B] else Seat.B if vp[Seat.B] > vp[Seat.A] else None
    b.emit(BattleEnded(Result(reason, winner, vp, tuple(sorted(in_reserve)))))


def _deadly_demise(b: Builder) -> None:
    """One D6 for each model with Deadly Demise destroyed on the battlefield since the last
    roll, before its passengers disembark [L1876-1882], [L1315-1317]."""
    s = b.state
    for u in s.units.values():
        spec = s.specs[u.id]
        if not spec.deadly_demise or u.location is not Location.BATTLEFIELD:
            continue
        dead = sum(1 for w in u.wounds if w <= 0) - u.demise_rolled
        if dead <= 0:
            continue
        roll = b.roll(dead, 6, f"deadly demise {spec.deadly_demise}")
        b.emit(DeadlyDemiseRolled(u.id, dead, roll, sum(1 for v in roll.values if v == 6)))


def finish(b: Builder) -> None:
    """After every command: Deadly Demise rolls, Transports destroyed with units inside, and
    army wipe-outs."""
    s = b.state
    if s.stage is not Stage.BATTLE:
        return
    _deadly_demise(b)
    s = b.state
    for u in s.units.values():
        if u.alive or u.location is not Location.BATTLEFIELD:
            continue
        riders = tuple(
            r.id
            for r in s.units.values()
            if r.embarked_in == u.id and r.alive and not r.transport_destroyed
        )
        if riders:
            b.emit(TransportDestroyed(u.id, riders))
    s = b.state
    if not s.army_alive(Seat.A) or not s.army_alive(Seat.B):
        end_battle(b, "army_destroyed")


def reserve_round_ok(state: BattleState, unit: UnitState) -> tuple[bool, int]:
    """Whether a Reserves unit may arrive this battle round, and from which round it may."""
    assert state.setup is not None
    if unit.reserve is ReserveKind.DEEP_STRIKE:
        first = state.setup.options.deep_strike_from_round
    else:  # Strategic Reserves, and Aircraft treated as such: not in round 1 [L3604-3605]
        first = 2
    return state.round >= first, first
