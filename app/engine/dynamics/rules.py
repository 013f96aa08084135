"""``decide`` for a Dynamics battle: the common turn of rules/dynamics.md §6.3 on top of the
PEN battle engine.

Every move, shot, charge and combat is decided by the PEN battle's own ``decide`` on a
*synthetic* PEN state: the tracked state as the acting seat's turn (``first`` = the actor,
movement or assault phase), with the models that are pending casualties of this pass put
back for the unit that acts [L231], and, in common turn 1, the targets counted as having made
their maximum rapid move (dynamics rulings). The PEN events it returns are logged as they are,
so the PEN engine stays the single place where an attack is rolled.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace

from app.engine.dynamics.commands import (
    COMMAND_CODEC,
    ChooseStarter,
    CreateDynamics,
    EndOrder,
    ExtremeMethod,
    LockOrders,
    PlaceOrder,
    Postpone,
    Retarget,
    RevealOrder,
    RollAdvantage,
    StartTurn,
)
from app.engine.dynamics.events import (
    EVENT_CODEC,
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
from app.engine.dynamics.evolve import evolve, remaining
from app.engine.dynamics.orders import Order, commitment, order_nonce
from app.engine.dynamics.state import Declaration, DynamicsState, DynStage, Slot
from app.engine.match.codec import Tagged, TaggedCodec
from app.engine.match.dice import take_roll
from app.engine.match.errors import Refusal, RefusalKind
from app.engine.match.events import Emitted, Event
from app.engine.match.log import Decision
from app.engine.pen import rolls, tables
from app.engine.pen.battle.commands import (
    Arrive,
    Charge,
    ChooseFirst,
    DeclareReserve,
    Deploy,
    Disembark,
    Embark,
    EndStep,
    Fight,
    Move,
    Ram,
    ReportControl,
    RollOff,
    ScoutMove,
    Shoot,
)
from app.engine.pen.battle.events import (
    NO_DICE,
    CombatFought,
    DawnRolled,
    FirstChosen,
    GameLengthRolled,
    PoisonTested,
    Regenerated,
    ReservesRolled,
    TestTaken,
)
from app.engine.pen.battle.rules import decide as pen_decide
from app.engine.pen.battle.rules import rapid_move
from app.engine.pen.battle.setup import SEATS, profile_of
from app.engine.pen.battle.state import BattleState, Phase, Place, Speed, Stage
from app.engine.pen.names import Rule
from app.engine.pen.profiles import Unit
from app.engine.roller import Roller

__all__ = ["DynamicsRuleBook", "decide"]

SYSTEM_ID = "pen-dynamics"
MAX_POSTPONES = 3
_SHOOTING = (Order.TACTICAL_MOVE, Order.FIRE, Order.ASSAULT, Order.DEEP_STRIKE)
_MOVING = (Order.TACTICAL_MOVE, Order.FORCED_MARCH, Order.ASSAULT)


def refuse(code: str, message: str, *, kind: RefusalKind = RefusalKind.RULES) -> Refusal:
    return Refusal(code, message, kind=kind)


class _Out:
    def __init__(self, state: DynamicsState, roller: Roller) -> None:
        self.state = state
        self.roller = roller
        self.events: list[Emitted] = []

    def emit(self, event: Event, audience: tuple[str, ...] | None = None) -> None:
        self.state = evolve(self.state, event)
        self.events.append(Emitted(event, audience))

    def pen(
        self,
        command: Tagged,
        actor: str,
        battle: BattleState,
        fix: Callable[[Event], Event] = lambda e: e,
        *,
        defender_charged: bool = False,
    ) -> None:
        decision = pen_decide(
            battle, command, actor, self.roller, defender_charged=defender_charged
        )
        for emitted in decision.events:
            self.emit(fix(emitted.event))


def _stage(state: DynamicsState, *stages: DynStage) -> None:
    if state.stage not in stages:
        raise refuse("wrong_stage", f"not now: the turn is at {state.stage}")


def _my_go(state: DynamicsState, actor: str) -> None:
    if state.to_act == "":
        raise refuse("advantage_first", "roll the advantage test of this step first")
    if state.to_act != actor:
        raise refuse("not_your_go", "it is your opponent's go", kind=RefusalKind.FORBIDDEN)


def _own_slot(state: DynamicsState, unit: str, actor: str) -> Slot:
    slot = state.slots.get(unit)
    if slot is None:
        if unit in state.battle.units:
            raise refuse("no_order", f"{unit} has no order this turn")
        raise refuse("unknown_unit", f"there is no squad {unit!r}", kind=RefusalKind.INPUT)
    if slot.seat != actor:
        raise refuse("not_your_unit", f"{unit} is not yours", kind=RefusalKind.FORBIDDEN)
    return slot


# -- advantage tests -------------------------------------------------------------------------


def _advantage(out: _Out, context: str, spend_bonus: bool) -> None:
    """1D6 each, best wins; +2 to the role that would begin [L161], +1 once per turn to the
    first to lock if spent [L160]; ties re-rolled (A5)."""
    s = out.state
    assert s.setup is not None
    start = len(out.roller.records)
    for attempt in range(1, 21):
        a = out.roller.roll(6, f"advantage A #{attempt}", stage="advantage")
        b = out.roller.roll(6, f"advantage B #{attempt}", stage="advantage")
        mods = {seat: (2 if s.setup.plus_two == seat else 0) for seat in SEATS}
        if spend_bonus:
            mods[s.bonus] += 1
        total_a, total_b = a + mods["A"], b + mods["B"]
        if total_a != total_b:
            winner = "A" if total_a > total_b else "B"
            roll = take_roll(out.roller, start)
            out.emit(AdvantageRolled(context, s.step, roll, total_a, total_b, winner, spend_bonus))
            return
    raise refuse("advantage_ties", "twenty ties in a row: roll again")


def _roll_advantage(out: _Out, cmd: RollAdvantage, actor: str) -> None:
    s = out.state
    _stage(s, DynStage.REVEAL, DynStage.RESOLVE)
    if s.to_act or s.advantage:
        raise refuse("no_advantage_test", "no advantage test is due at this step")
    holder = s.bonus if s.bonus and not s.bonus_spent else ""
    if holder and actor != holder:
        raise refuse(
            "bonus_holder_rolls",
            "the player holding the +1 says first whether to spend it [L160]",
            kind=RefusalKind.FORBIDDEN,
        )
    if cmd.spend_bonus and not holder:
        raise refuse("no_bonus", "you hold no unspent +1 advantage bonus this turn")
    _advantage(out, str(s.stage), cmd.spend_bonus)


def _choose_starter(out: _Out, cmd: ChooseStarter, actor: str) -> None:
    s = out.state
    if not s.advantage or s.to_act:
        raise refuse("no_choice", "nobody chooses who starts now")
    if actor != s.advantage:
        raise refuse("not_your_choice", "the advantage winner chooses", kind=RefusalKind.FORBIDDEN)
    if cmd.seat not in SEATS:
        raise refuse("bad_seat", "seat A or B", kind=RefusalKind.INPUT)
    out.emit(StarterChosen(cmd.seat))


def _enter_step(out: _Out, stage: DynStage, step: int) -> None:
    """Enter an Initiative step: one player alone goes on; both: an advantage test [L203-L209]."""
    probe = replace(out.state, stage=stage, step=step)
    seats = [seat for seat in SEATS if remaining(probe, seat)]
    out.emit(StageEntered(stage, step, seats[0] if len(seats) == 1 else ""))


# -- set-up ----------------------------------------------------------------------------------


def _create(out: _Out, cmd: CreateDynamics) -> None:
    if out.state.setup is not None:
        raise refuse("wrong_stage", "the battle exists already")
    problems = cmd.setup.problems()
    if problems:
        raise Refusal(
            "bad_setup",
            "; ".join(f"{p}: {m}" for p, m in problems),
            kind=RefusalKind.INPUT,
            details={"errors": [{"field": p, "message": m} for p, m in problems]},
        )
    setup = cmd.setup
    if setup.battle.seed_moves is None:  # recorded, as a PEN battle records it (pen B37)
        setup = replace(setup, battle=replace(setup.battle, seed_moves=True))
    out.emit(DynamicsCreated(setup))


def _setup_step(out: _Out, command: Tagged, actor: str) -> None:
    _stage(out.state, DynStage.SETUP)
    battle = out.state.battle
    if battle.stage in _PLACING and _contested(battle):
        _placing_step(out, command, actor)
    elif isinstance(command, ChooseFirst):
        # no first player [L138]: the roll-off winner only chooses who deploys first [L142];
        # PEN's "more than half in reserve plays second" [L834] has no first player to bind
        if battle.stage is not Stage.CHOOSE:
            raise refuse("wrong_stage", f"not now: the battle is at {battle.stage}")
        if actor != battle.roll_off_winner:
            raise refuse(
                "not_your_choice", "the roll-off winner chooses", kind=RefusalKind.FORBIDDEN
            )
        if command.seat not in SEATS:
            raise refuse("bad_seat", "seat A or B", kind=RefusalKind.INPUT)
        out.emit(FirstChosen(command.seat))
    else:
        out.pen(command, actor, battle)
    if out.state.battle.stage is Stage.BATTLE:
        out.emit(TurnBegan(1))


_PLACING = {Stage.INFILTRATE: "infiltrators", Stage.SCOUT: "scout moves"}


def _contested(battle: BattleState) -> bool:
    """Whether both players have infiltrators to place (scouts to move) at this step."""
    if battle.stage is Stage.INFILTRATE:
        rule, place = str(Rule.INFILTRATE), Place.UNDEPLOYED
    else:
        rule, place = str(Rule.SCOUT), Place.TABLE
    return all(
        any(u.place is place and u.models > 0 and rule in u.rules for u in battle.seat_units(s))
        for s in SEATS
    )


def _placing_step(out: _Out, command: Tagged, actor: str) -> None:
    """Who places infiltrators first, and who makes scout moves first, is rolled off (best
    1D6, ties re-rolled) when both players have some [L142] (dynamics rulings D1). The winner
    chooses who starts; the other player waits until that one has ended the step."""
    s = out.state
    battle = s.battle
    step = str(battle.stage)
    what = _PLACING[battle.stage]
    if step not in s.placing_first:
        if isinstance(command, RollOff):
            if step in s.placing_winner:
                raise refuse("rolled_off", f"the roll-off for {what} is made: its winner chooses")
            start = len(out.roller.records)
            for attempt in range(1, 21):
                a = out.roller.roll(6, f"{what} roll-off A #{attempt}", stage="roll_off")
                b = out.roller.roll(6, f"{what} roll-off B #{attempt}", stage="roll_off")
                if a != b:
                    winner = "A" if a > b else "B"
                    out.emit(PlacingRollOff(step, take_roll(out.roller, start), winner))
                    return
            raise refuse("roll_off_ties", "twenty ties in a row: roll again")
        if isinstance(command, ChooseFirst) and step in s.placing_winner:
            if actor != s.placing_winner[step]:
                raise refuse(
                    "not_your_choice", "the roll-off winner chooses", kind=RefusalKind.FORBIDDEN
                )
            if command.seat not in SEATS:
                raise refuse("bad_seat", "seat A or B", kind=RefusalKind.INPUT)
            out.emit(PlacingFirstChosen(step, command.seat))
            return
        raise refuse("roll_off_first", f"who places {what} first is rolled off first [L142]")
    first = s.placing_first[step]
    if actor != first and first not in battle.ready:
        raise refuse(
            "not_your_turn",
            f"{first} won the roll-off for {what}: wait until that player is done [L142]",
            kind=RefusalKind.FORBIDDEN,
        )
    if isinstance(command, RollOff | ChooseFirst):
        raise refuse("rolled_off", f"who places {what} first is decided")
    out.pen(command, actor, battle)


# -- start of the turn -----------------------------------------------------------------------


def _ld_test(out: _Out, unit: str, test: str, malus: int) -> None:
    me = out.state.battle.units[unit]
    fearless = bool({str(Rule.FEARLESS), str(Rule.ATSKNF)} & me.rules)
    profile = profile_of(out.state.battle.unit_spec(unit), max(me.models, 1))
    start = len(out.roller.records)
    passed = fearless or rolls.ld_test_procedure(
        out.roller, getattr(profile, "leadership", None), malus, test
    )
    out.emit(TestTaken(unit, test, take_roll(out.roller, start), malus, passed))


def _start_turn(out: _Out) -> None:
    s = out.state
    _stage(s, DynStage.TURN_START)
    b = s.battle
    if b.night:  # one dawn roll per common turn (dynamics rulings D2) [L948]
        start = len(out.roller.records)
        die = out.roller.roll(6, f"dawn, turn {s.turn}", stage="dawn")
        day = die >= tables.dawn_target(s.turn)
        out.roller.annotate(outcome="day" if day else "night")
        out.emit(DawnRolled(take_roll(out.roller, start), day))
    waiting = {
        seat: sorted(u.id for u in b.seat_units(seat) if u.place is Place.RESERVE) for seat in SEATS
    }
    target = tables.reserve_target(s.turn)  # PEN's table (dynamics rulings D4)
    for seat in SEATS:
        if not waiting[seat]:
            continue
        start = len(out.roller.records)
        arrived: list[str] = []
        for unit in waiting[seat]:
            if target is None:
                arrived.append(unit)
                continue
            die = out.roller.roll(6, f"reserves {unit}", stage="reserves")
            out.roller.annotate(outcome="arrives" if die >= target else "waits")
            if die >= target:
                arrived.append(unit)
        out.emit(ReservesRolled(take_roll(out.roller, start), tuple(arrived)))
    for unit in sorted(u.id for u in out.state.battle.units.values() if u.retreating and u.alive):
        me = out.state.battle.units[unit]
        _ld_test(out, unit, "regroup", 1 if 2 * me.models <= me.models_start else 0)
    _regenerate(out)
    _poison(out)
    seats = [
        seat
        for seat in SEATS
        if any(u.place is Place.AVAILABLE for u in out.state.battle.seat_units(seat))
    ]
    if not seats:
        out.emit(StageEntered(DynStage.PLACEMENT))
    elif len(seats) == 1:
        out.emit(StageEntered(DynStage.ARRIVALS, 0, seats[0]))
    else:  # both place arrivals: the advantage winner places first or lets the other [L148-L152]
        out.emit(StageEntered(DynStage.ARRIVALS, 0, ""))
        _advantage(out, "reserves", False)


def _regenerate(out: _Out) -> None:
    """Regeneration (X): a squad whose worn model lost W rolls 1D6, X+ (5+ by default) gets
    1 W back (PEN [L453]), once per common turn for both players (rulings D19)."""
    b = out.state.battle
    for unit in sorted(b.units):
        me = b.units[unit]
        if not me.alive or not me.wounds_taken or str(Rule.REGENERATION) not in me.rules:
            continue
        profile = profile_of(b.unit_spec(unit), me.models)
        value = profile.value_of(Rule.REGENERATION) if isinstance(profile, Unit) else None
        target = value or 5
        start = len(out.roller.records)
        die = out.roller.roll(6, f"regeneration {unit} ({target}+)", stage="regeneration")
        out.roller.annotate(outcome="healed" if die >= target else "failed")
        out.emit(Regenerated(unit, take_roll(out.roller, start), die >= target))


def _poison(out: _Out) -> None:
    """A poisoned squad tests the T of its worn model; a failure is 1 W with no save at all
    (PEN [L665]); once per common turn, among its start-of-turn tests (rulings D19)."""
    b = out.state.battle
    for unit in sorted(b.units):
        me = b.units[unit]
        if not me.alive or not me.poisoned:
            continue
        toughness = getattr(profile_of(b.unit_spec(unit), me.models), "toughness", None)
        value = tables.clamp_characteristic(toughness) if toughness is not None else 6
        start = len(out.roller.records)
        die = out.roller.roll(6, f"poison: T test {unit}", stage="poison")
        passed = die == 1 or (die != 6 and die <= value)
        out.roller.annotate(outcome="passed" if passed else "failed")
        models, taken = me.models, me.wounds_taken
        if not passed:  # the worn model takes the wound; it dies at its W (pen rulings)
            dead, taken = divmod(taken + 1, max(me.wounds, 1))
            models = max(models - dead, 0)
            taken = taken if models else 0
        out.emit(PoisonTested(unit, take_roll(out.roller, start), passed, models, taken))


def _arrive(out: _Out, cmd: Arrive, actor: str) -> None:
    s = out.state
    _stage(s, DynStage.ARRIVALS)
    _my_go(s, actor)
    out.pen(cmd, actor, _synthetic(s, actor, Phase.MOVEMENT))
    if not any(remaining(out.state, seat) for seat in SEATS):
        out.emit(StageEntered(DynStage.PLACEMENT))


def _synthetic(
    state: DynamicsState, actor: str, phase: Phase, restore: Iterable[str] = ()
) -> BattleState:
    """The tracked PEN state as ``actor``'s turn, ``restore``: units whose pending casualties
    still act in this pass [L231]."""
    b = replace(
        state.battle, stage=Stage.BATTLE, first=actor, turn=0, phase=phase, active_unit=None
    )
    for unit in restore:
        me = b.units[unit]
        start = state.pass_start.get(unit, 0)
        if start > me.models:
            b = b.with_unit(replace(me, models=start, place=Place.TABLE))
    return b


# -- order placement -------------------------------------------------------------------------


def _place(out: _Out, cmd: PlaceOrder, actor: str, secret: str | bytes | None) -> None:
    s = out.state
    _stage(s, DynStage.PLACEMENT)
    if actor in s.locked:
        raise refuse("orders_locked", "your orders are locked for this turn")
    me = s.battle.units.get(cmd.unit)
    if me is None:
        raise refuse("unknown_unit", f"there is no squad {cmd.unit!r}", kind=RefusalKind.INPUT)
    if me.seat != actor:
        raise refuse("not_your_unit", f"{cmd.unit} is not yours", kind=RefusalKind.FORBIDDEN)
    if not s.on_battlefield(cmd.unit):
        raise refuse("not_on_table", "only units on the battlefield take an order [L171]")
    if me.arrived_deep_strike and cmd.order is not Order.DEEP_STRIKE:
        raise refuse("deep_strike_only", "a unit arriving by deep strike takes Deep Strike [L177]")
    if cmd.order is Order.DEEP_STRIKE and not me.arrived_deep_strike:
        raise refuse("no_deep_strike", "Deep Strike is the order of a deep strike arrival [L122]")
    if me.retreating and cmd.order is not Order.FIRE:
        raise refuse("fire_only", "a falling-back unit may only take the Fire order [L179]")
    if me.locked and not me.retreating and cmd.order is not Order.ASSAULT:
        raise refuse("assault_only", "a unit locked in combat takes an Assault order (rulings D10)")
    if secret is None:
        # the match layer seeds the command from its secret (DynamicsBattle.command_seed)
        if out.roller.seed is None:
            raise refuse(
                "seed_needed",
                "an order is sealed with the match's seed for it: send it without dice",
                kind=RefusalKind.INPUT,
            )
        secret = f"seed:{out.roller.seed}"
    nonce = order_nonce(secret, s.turn, cmd.unit, s.placements)
    out.emit(
        OrderCommitted(actor, cmd.unit, s.turn, commitment(s.turn, cmd.unit, cmd.order, nonce))
    )
    out.emit(OrderChosen(cmd.unit, cmd.order, nonce), audience=(actor,))


def _lock(out: _Out, actor: str) -> None:
    s = out.state
    _stage(s, DynStage.PLACEMENT)
    assert s.setup is not None
    if actor in s.locked:
        raise refuse("orders_locked", "your orders are already locked")
    missing = [u for u in s.needs_order(actor) if u not in s.slots]
    if missing:
        raise refuse("orders_missing", f"every unit takes an order: {', '.join(missing)} [L171]")
    supply = s.setup.tokens_per_type
    if supply is not None:
        for order in Order:
            used = sum(1 for x in s.slots.values() if x.seat == actor and x.order is order)
            if used > supply.get(actor, 0):
                raise refuse("out_of_tokens", f"{used} {order} orders: you have {supply[actor]}")
    out.emit(OrdersLocked(actor))
    if len(out.state.locked) == 2:
        _next_reveal_step(out)


def _next_reveal_step(out: _Out) -> None:
    s = out.state
    assert s.setup is not None
    steps = sorted({s.setup.initiative(x.unit) for x in s.slots.values() if not x.revealed})
    if steps:
        _enter_step(out, DynStage.REVEAL, steps[0])
    else:
        _next_resolve_step(out)


# -- reveal ----------------------------------------------------------------------------------


def _resolve_step(s: DynamicsState, slot: Slot, decl: Declaration) -> int:
    assert s.setup is not None
    own = s.setup.initiative(slot.unit)
    if decl.delay_to:
        return s.setup.initiative(decl.delay_to)
    if decl.with_passengers:
        return max([own, *(s.setup.initiative(p) for p in s.passengers(slot.unit))])
    return own


def _check_declaration(s: DynamicsState, slot: Slot, cmd: RevealOrder) -> Declaration:
    assert s.setup is not None
    assert slot.order is not None
    order, b = slot.order, s.battle
    me = b.units[slot.unit]
    problems: list[str] = []
    target = cmd.target
    if target:
        them = b.units.get(target)
        if them is None or them.seat == slot.seat or not them.on_table:
            problems.append(f"{target!r} is not an enemy unit on the table")
        if order is Order.FORCED_MARCH:
            problems.append("a Forced March names no target [L110]")
        if order is Order.DEEP_STRIKE and cmd.mode != "shoot":
            problems.append("a deep striker names a target only to shoot [L124]")
    elif order in (Order.FIRE, Order.ASSAULT) or (
        order is Order.DEEP_STRIKE and cmd.mode == "shoot"
    ):
        problems.append(f"{order} declares its target [L80], [L90], [L199]")
    if order is Order.DEEP_STRIKE and cmd.mode not in ("run", "shoot"):
        problems.append("a Deep Strike declares run or shoot [L124]")
    if order is not Order.DEEP_STRIKE and cmd.mode:
        problems.append("only Deep Strike declares a mode")
    if me.locked and order is Order.ASSAULT and target not in me.locked:
        problems.append("a locked unit fights a unit it is locked with (rulings D10)")
    if cmd.tank_shock_inches is not None:
        if order is not Order.TACTICAL_MOVE or not me.is_vehicle:
            problems.append("a Tank Shock is a vehicle's Tactical Move [L33]")
        elif not 0 < cmd.tank_shock_inches <= 12 or not cmd.tank_shock_direction:
            problems.append("a Tank Shock declares its direction and 1 to 12 ps [L33]")
    if cmd.with_passengers and not s.passengers(slot.unit):
        problems.append("only a transport with passengers acts at their pass [L223]")
    if cmd.delay_to:
        escort = s.slots.get(cmd.delay_to)
        named = s.setup.escorts.get(slot.unit)
        squad = b.units.get(cmd.delay_to)
        if not s.setup.is_ic(slot.unit):
            problems.append("only an independent character delays its action [L219]")
        elif named is not None and named != cmd.delay_to:
            problems.append("an independent character delays only to its escort [L219], [L297]")
        elif (
            squad is None
            or squad.seat != slot.seat
            or squad.is_vehicle
            or s.setup.is_ic(cmd.delay_to)
        ):
            problems.append(
                "a character delays only to a squad of its army, not a character [L297]"
            )
        elif (
            escort is None
            or not escort.revealed
            or escort.order is not order
            or escort.declaration.target != target
        ):
            problems.append("the escort must have revealed the same order and target [L219]")
        elif s.setup.initiative(cmd.delay_to) >= s.setup.initiative(slot.unit):
            problems.append("a delay goes to a lower pass (rulings D12)")
    if problems:
        raise refuse("bad_declaration", f"{slot.unit}: " + "; ".join(problems))
    return Declaration(
        target,
        cmd.mode,
        cmd.tank_shock_inches,
        cmd.tank_shock_direction,
        cmd.with_passengers,
        cmd.delay_to,
    )


def _reveal(out: _Out, cmd: RevealOrder, actor: str) -> None:
    s = out.state
    _stage(s, DynStage.REVEAL)
    _my_go(s, actor)
    slot = _own_slot(s, cmd.unit, actor)
    if cmd.unit not in remaining(s, actor):
        raise refuse(
            "not_this_step",
            f"{cmd.unit} reveals at Initiative {s.setup.initiative(cmd.unit) if s.setup else 0}",
        )
    decl = _check_declaration(s, slot, cmd)
    assert slot.order is not None
    step = _resolve_step(s, slot, decl)
    out.emit(OrderRevealed(cmd.unit, slot.order, slot.nonce, decl, step))
    if not any(remaining(out.state, seat) for seat in SEATS):
        _next_reveal_step(out)


# -- resolution ------------------------------------------------------------------------------


def _next_resolve_step(out: _Out) -> None:
    s = out.state
    steps = sorted({x.step for x in s.slots.values() if not x.resolved}, reverse=True)
    if steps:
        _enter_step(out, DynStage.RESOLVE, steps[0])
    else:
        _end_turn(out)


def _acting(out: _Out, unit: str, actor: str) -> Slot:
    s = out.state
    _stage(s, DynStage.RESOLVE)
    _my_go(s, actor)
    slot = _own_slot(s, unit, actor)
    if s.active and s.active != unit:
        raise refuse("order_open", f"finish the order of {s.active} first (end_order)")
    if unit not in remaining(s, actor):
        if s.extreme and slot.step == s.step and not slot.resolved:
            raise refuse("extreme_method", "the extreme method's units act first [L273]")
        raise refuse("not_this_pass", f"{unit} acts at Initiative {slot.step}")
    return slot


def _extreme_phase(s: DynamicsState, unit: str, phase: str) -> None:
    """Under the extreme method, a unit moves in the move phase, shoots in the shooting
    phase and charges and fights in the charge phase [L273]."""
    if unit in s.extreme and s.extreme_phase != phase:
        raise refuse(
            "extreme_phase",
            f"the extreme method is at its {s.extreme_phase} phase: not a {phase} [L273]",
        )


def _extreme(out: _Out, cmd: ExtremeMethod, actor: str) -> None:
    s = out.state
    _stage(s, DynStage.RESOLVE)
    _my_go(s, actor)
    if s.extreme:
        raise refuse("extreme_method", "the extreme method is already under way in this pass")
    if s.active:
        raise refuse("order_open", f"finish the order of {s.active} first (end_order)")
    units = tuple(sorted(set(cmd.units)))
    problems = []
    for unit in units:
        slot = s.slots.get(unit)
        if slot is None or unit not in remaining(s, slot.seat):
            problems.append(f"{unit} has no order left in this pass")
        elif slot.moved or slot.shot or slot.charged or slot.rounds:
            problems.append(f"{unit} has begun its order")
    if not problems and len({s.slots[u].seat for u in units}) < 2:
        problems.append("a conflict is between units of both players [L271]")
    if problems:
        raise refuse("bad_extreme", "; ".join(problems))
    out.emit(ExtremeBegan(units))


def _move(out: _Out, cmd: Move, actor: str) -> None:
    slot = _acting(out, cmd.unit, actor)
    s = out.state
    _extreme_phase(s, cmd.unit, "move")
    me = s.battle.units[cmd.unit]
    fleeing = me.retreating and slot.order is Order.FIRE
    if slot.order not in _MOVING and not fleeing:
        raise refuse("no_move", f"a {slot.order} order does not move [L80], [L122]")
    if slot.moved or slot.shot or slot.charged:
        raise refuse("already_moved", "the move comes first, once [L31]")
    if me.models <= 0:
        raise refuse("pending", "its models are all pending casualties: they shoot or strike only")
    allowed = {Speed.STATIONARY, Speed.NORMAL}
    if slot.order is Order.FORCED_MARCH or fleeing:
        allowed = {Speed.RAPID} if fleeing else {Speed.NORMAL, Speed.RAPID}
    if cmd.speed not in allowed:
        speeds = ", ".join(sorted(allowed))
        raise refuse("wrong_speed", f"a {slot.order} order moves at {speeds} (rulings D5)")
    out.pen(cmd, actor, _synthetic(s, actor, Phase.MOVEMENT))


def _ram(out: _Out, cmd: Ram, actor: str) -> None:
    """PEN's ram (charge bélier, PEN [L1010-L1030]) is how a vehicle's Tank Shock and Ram are
    played: a Tactical Move that declared a Tank Shock rams along it for the inches declared
    [L33]; an Assault order rams its declared target [L100] (dynamics rulings D7). The PEN
    engine rolls it; the vehicle then neither shoots nor charges."""
    slot = _acting(out, cmd.unit, actor)
    s = out.state
    _extreme_phase(s, cmd.unit, "move")
    decl = slot.declaration
    shock = slot.order is Order.TACTICAL_MOVE and decl.tank_shock_inches is not None
    if not shock and slot.order is not Order.ASSAULT:
        raise refuse(
            "no_ram",
            "a ram is a Tactical Move that declared a Tank Shock [L33] or an Assault order [L100]",
        )
    if shock and cmd.inches != decl.tank_shock_inches:
        raise refuse(
            "declared_distance",
            f"the Tank Shock was declared for {decl.tank_shock_inches} ps [L33]",
        )
    if slot.order is Order.ASSAULT and decl.target not in {t.unit for t in cmd.targets}:
        raise refuse("declared_target", f"it rams its declared target {decl.target!r} [L100]")
    if slot.moved or slot.shot or slot.charged:
        raise refuse("already_moved", "the ram is the order's move, first [L31], [L90]")
    out.pen(cmd, actor, _synthetic(s, actor, Phase.MOVEMENT))


def _disembark(out: _Out, cmd: Disembark, actor: str) -> None:
    """Getting out of a transport is part of a move: an order that moves [L31], [L90],
    [L110], before the squad's own move, or after its transport moved (it then counts as
    having made a normal move, PEN [L279], [L282]) (dynamics rulings D21)."""
    slot = _acting(out, cmd.unit, actor)
    s = out.state
    _extreme_phase(s, cmd.unit, "move")
    if slot.order not in _MOVING:
        raise refuse("no_move", f"a {slot.order} order does not move: it stays aboard [L80]")
    if slot.moved or slot.shot or slot.charged:
        raise refuse("already_moved", "a squad gets out before it moves or shoots [L31]")
    out.pen(cmd, actor, _synthetic(s, actor, Phase.MOVEMENT))


def _embark(out: _Out, cmd: Embark, actor: str) -> None:
    """Boarding a transport at the start or the end of the squad's move ends its action for
    the turn (PEN [L277-L278]): an order that moves, before any shot or charge (D21)."""
    slot = _acting(out, cmd.unit, actor)
    s = out.state
    _extreme_phase(s, cmd.unit, "move")
    if slot.order not in _MOVING:
        raise refuse("no_move", f"a {slot.order} order does not move [L80]")
    if slot.shot or slot.charged:
        raise refuse("cannot_embark", "a squad embarks at the start or the end of its move")
    battle = _synthetic(s, actor, Phase.MOVEMENT)
    if slot.moved:  # the end of its move: PEN sees the squad's activation still open
        battle = replace(battle, active_unit=cmd.unit)
    out.pen(cmd, actor, battle)


def _shoot(out: _Out, cmd: Shoot, actor: str) -> None:
    slot = _acting(out, cmd.unit, actor)
    s = out.state
    _extreme_phase(s, cmd.unit, "shoot")
    decl = slot.declaration
    if slot.order not in _SHOOTING or (slot.order is Order.DEEP_STRIKE and decl.mode != "shoot"):
        raise refuse("no_shooting", f"this {slot.order} order does not shoot")
    if cmd.target != decl.target:
        raise refuse(
            "declared_target", f"it shoots its declared target {decl.target!r} [L31], [L80]"
        )
    if slot.charged:
        raise refuse("after_charge", "shooting comes before the charge [L90]")
    if slot.order is Order.TACTICAL_MOVE:
        spec = s.battle.unit_spec(cmd.unit).weapon(cmd.weapon)
        kind = (
            spec.profile.get("type")
            if spec is not None and isinstance(spec.profile, dict)
            else None
        )
        if kind in ("heavy", "artillery") or (kind == "rapid fire" and not cmd.half_range):
            raise refuse(
                "stationary_weapon",
                "a Tactical Move cannot fire heavy, artillery or rapid fire at full range [L31]",
            )
    battle = _synthetic(s, actor, Phase.MOVEMENT, restore=(cmd.unit,))
    if s.turn == 1 and cmd.target in battle.units and cmd.target not in s.scouted:
        # PEN's first-turn protection [L1337] applies to both sides in common turn 1 (rulings D3)
        them = battle.units[cmd.target]
        if them.on_table and them.speed is None:
            # its own maximum rapid move (pen B37); a log recorded before: 12 ps for all
            seed = battle.setup is not None and battle.setup.seed_moves
            moved = rapid_move(battle, them) if seed else 12
            battle = battle.with_unit(replace(them, speed=Speed.RAPID, moved=moved))
    out.pen(cmd, actor, battle)


def _retarget(out: _Out, cmd: Retarget, actor: str) -> None:
    """A Tactical Move may shoot another target if it passes a Leadership test; a vehicle
    with no Leadership shoots its declared target [L31]. One test, before it shoots."""
    slot = _acting(out, cmd.unit, actor)
    s = out.state
    _extreme_phase(s, cmd.unit, "shoot")
    if slot.order is not Order.TACTICAL_MOVE:
        raise refuse("no_retarget", "only a Tactical Move may change its target [L31]")
    if slot.shot or slot.retarget_tested:
        raise refuse("no_retarget", "one Leadership test, before it shoots [L31]")
    them = s.battle.units.get(cmd.target)
    if them is None or them.seat == actor or not them.on_table:
        raise refuse("bad_target", f"{cmd.target!r} is not an enemy unit on the table")
    if cmd.target == slot.declaration.target:
        raise refuse("bad_target", f"{cmd.target} is its declared target already")
    me = s.battle.units[cmd.unit]
    profile = profile_of(s.battle.unit_spec(cmd.unit), max(me.models, 1))
    leadership = getattr(profile, "leadership", None)
    if leadership is None:
        raise refuse("no_leadership", "a vehicle with no Leadership shoots its declared target")
    start = len(out.roller.records)
    passed = rolls.ld_test_procedure(out.roller, leadership, 0, f"retarget {cmd.unit}")
    out.emit(RetargetTested(cmd.unit, cmd.target, take_roll(out.roller, start), passed))


def _charge(out: _Out, cmd: Charge, actor: str) -> None:
    slot = _acting(out, cmd.unit, actor)
    _extreme_phase(out.state, cmd.unit, "charge")
    if slot.order is not Order.ASSAULT:
        raise refuse("no_assault", "only an Assault order charges [L90], [L126]")
    if cmd.target != slot.declaration.target:
        raise refuse("declared_target", "it charges its declared target [L90]")
    out.pen(cmd, actor, _synthetic(out.state, actor, Phase.ASSAULT))


def _fight(out: _Out, cmd: Fight, actor: str) -> None:
    slot = _acting(out, cmd.unit, actor)
    s = out.state
    _extreme_phase(s, cmd.unit, "charge")
    if slot.order is not Order.ASSAULT or cmd.target != slot.declaration.target:
        raise refuse("no_assault", "an Assault order fights its declared target [L90]")
    if slot.rounds >= 1:
        raise refuse("one_round", "an Assault order fights one round [L92]")
    theirs = s.slots.get(cmd.target)
    second = (
        theirs is not None
        and theirs.order is Order.ASSAULT
        and theirs.declaration.target == cmd.unit
        and theirs.rounds >= 1
    )
    if second:
        # the second round of a mutual assault (or of a locked combat whose two sides hold
        # Assault orders): only if both held [L305], pending casualties removed first [L239],
        # no charge bonus [L96]; the PEN engine's one-combat-a-phase flag is reset for it
        battle = _synthetic(s, actor, Phase.ASSAULT)
        for who in (cmd.unit, cmd.target):
            battle = battle.with_unit(replace(battle.units[who], fought=False, charged=False))
    else:
        battle = _synthetic(s, actor, Phase.ASSAULT, restore=(cmd.unit, cmd.target))
    # the first round of a mutual assault in one pass: both sides have the charge bonus [L96]
    # (the target's order, not resolved yet, assaults this unit); a later pass's target
    # strikes without it [L98] (dynamics rulings D16)
    both_charge = (
        not second
        and battle.units[cmd.unit].charged
        and theirs is not None
        and theirs.order is Order.ASSAULT
        and theirs.declaration.target == cmd.unit
        and theirs.step == slot.step
        and not theirs.resolved
        and theirs.rounds == 0
    )
    real = s.battle.units

    def fix(event: Event) -> Event:
        if not isinstance(event, CombatFought):
            return event

        def left(unit: str, after: int) -> int:
            gone = battle.units[unit].models - after
            return max(0, real[unit].models - gone)

        return replace(
            event,
            unit_models_left=left(event.unit, event.unit_models_left),
            target_models_left=left(event.target, event.target_models_left),
        )

    out.pen(cmd, actor, battle, fix, defender_charged=both_charge)


def _postpone(out: _Out, cmd: Postpone, actor: str) -> None:
    slot = _acting(out, cmd.unit, actor)
    s = out.state
    if s.extreme:
        raise refuse("extreme_method", "under the extreme method, end_order ends a phase")
    if slot.postponed >= MAX_POSTPONES:
        raise refuse("postponed_enough", f"an order waits at most {MAX_POSTPONES} times")
    others = [u for seat in SEATS for u in remaining(s, seat) if u != cmd.unit]
    if not others:
        raise refuse("nothing_to_wait_for", "no other order of this pass is left: resolve it")
    out.emit(OrderPostponed(cmd.unit))


def _shooters_left(s: DynamicsState, unit: str) -> bool:
    """Whether an unresolved order of this pass may still shoot at ``unit`` [L241]. An Assault
    order naming it does not hold the test back: a failure against it is settled by the
    sweeping-advance roll-off [L243] (dynamics rulings D17)."""
    return any(
        x.step == s.step
        and not x.resolved
        and x.declaration.target == unit
        and x.order in _SHOOTING
        and x.order is not Order.ASSAULT
        for x in s.slots.values()
    )


def _deferred_morale(out: _Out, final: bool) -> None:
    """A unit that lost 25% of its models to shooting in this pass tests once no order of the
    pass can still shoot at it, -1 at 50% [L241]."""
    s = out.state
    for unit in sorted(s.shot_losses):
        lost, base = s.shot_losses[unit], out.state.pass_start.get(unit, 0)
        me = out.state.battle.units[unit]
        if unit in out.state.morale_done or base <= 0 or 4 * lost < base:
            continue
        if me.models <= 0 or me.is_vehicle or me.locked or me.retreating:
            continue
        if not final and _shooters_left(out.state, unit):
            continue
        _ld_test(out, unit, "morale", 1 if 2 * lost >= base else 0)
        if out.state.battle.units[unit].retreating:
            _sweep(out, unit)


def _majority_initiative(s: DynamicsState, unit: str) -> int:
    me = s.battle.units[unit]
    profile = profile_of(s.battle.unit_spec(unit), max(me.models, 1))
    return int(getattr(profile, "initiative", None) or 1)


def _sweep(out: _Out, unit: str) -> None:
    """A unit that fails its morale test to shooting while an enemy holds an Assault order
    against it in this pass: the sweeping-advance roll-off, as if it fled a lost combat
    (Dyn [L243]; PEN [L1258]: 1D6 + I each, caught on <=). Several assaulters roll in turn,
    in the order of their units' ids, until one catches it (dynamics rulings D17)."""
    s = out.state
    me = s.battle.units[unit]
    if bool({str(Rule.ATSKNF)} & me.rules):
        return  # always falls back safely (PEN [L418])
    assaulters = sorted(
        x.unit
        for x in s.slots.values()
        if x.step == s.step
        and x.revealed
        and not x.resolved
        and x.order is Order.ASSAULT
        and x.declaration.target == unit
        and s.battle.units[x.unit].on_table
        and not s.battle.units[x.unit].retreating
    )
    for assaulter in assaulters:
        start = len(out.roller.records)
        caught = rolls.roll_off_procedure(
            out.roller,
            _majority_initiative(out.state, assaulter),
            _majority_initiative(out.state, unit),
            f"sweeping advance {assaulter} on {unit}",
        )
        out.emit(SweepRolled(unit, assaulter, take_roll(out.roller, start), caught))
        if caught:
            return


def _end_order(out: _Out, cmd: EndOrder, actor: str) -> None:
    _acting(out, cmd.unit, actor)
    s = out.state
    if cmd.unit in s.extreme and s.extreme_phase != "charge":
        out.emit(ExtremePhaseDone(cmd.unit))  # its part of this phase is over
        _deferred_morale(out, final=False)
        return
    out.emit(OrderEnded(cmd.unit))
    s = out.state
    if s.extreme and all(s.slots[u].resolved for u in s.extreme):
        out.emit(ExtremeEnded(actor))
    _deferred_morale(out, final=False)
    if not any(remaining(out.state, seat) for seat in SEATS):
        _deferred_morale(out, final=True)
        out.emit(PassEnded(out.state.step))
        _next_resolve_step(out)


def _end_turn(out: _Out) -> None:
    s = out.state
    out.emit(TurnEnded(s.turn))
    target = tables.game_continues_target(s.turn) if s.turn >= 5 else 0
    if s.turn >= 5:  # a common turn is a game round for the game's length (rulings D8) [L826]
        if target is None:
            out.emit(GameLengthRolled(s.turn, NO_DICE, False))
        else:
            start = len(out.roller.records)
            die = out.roller.roll(6, f"game length after turn {s.turn}", stage="game_length")
            out.roller.annotate(outcome="continues" if die >= target else "ends")
            out.emit(GameLengthRolled(s.turn, take_roll(out.roller, start), die >= target))
        if out.state.stage is DynStage.OVER:
            return
    out.emit(TurnBegan(s.turn + 1))


# -- the rule book ---------------------------------------------------------------------------


def decide(
    state: DynamicsState,
    command: Tagged,
    actor: str,
    dice: Roller,
    secret: str | bytes | None = None,
) -> Decision[DynamicsState]:
    if actor not in SEATS:
        raise refuse("bad_seat", "only seats A and B act", kind=RefusalKind.FORBIDDEN)
    if state.battle.stage is Stage.ENDED:
        raise refuse("battle_over", "the battle is over")
    out = _Out(state, dice)
    match command:
        case CreateDynamics():
            _create(out, command)
        case DeclareReserve() | EndStep() | RollOff() | ChooseFirst() | Deploy() | ScoutMove():
            _setup_step(out, command, actor)
        case Embark() if state.stage is DynStage.SETUP:
            _setup_step(out, command, actor)  # deployed in its transport, or kept in reserve
        case Embark():
            _embark(out, command, actor)
        case Disembark():
            _disembark(out, command, actor)
        case Ram():
            _ram(out, command, actor)
        case StartTurn():
            _start_turn(out)
        case RollAdvantage():
            _roll_advantage(out, command, actor)
        case ChooseStarter():
            _choose_starter(out, command, actor)
        case Arrive():
            _arrive(out, command, actor)
        case PlaceOrder():
            _place(out, command, actor, secret)
        case LockOrders():
            _lock(out, actor)
        case RevealOrder():
            _reveal(out, command, actor)
        case Move():
            _move(out, command, actor)
        case Retarget():
            _retarget(out, command, actor)
        case Shoot():
            _shoot(out, command, actor)
        case Charge():
            _charge(out, command, actor)
        case Fight():
            _fight(out, command, actor)
        case Postpone():
            _postpone(out, command, actor)
        case EndOrder():
            _end_order(out, command, actor)
        case ExtremeMethod():
            _extreme(out, command, actor)
        case ReportControl():
            _stage(state, DynStage.OVER)
            out.pen(command, actor, state.battle)
        case _:
            raise refuse("unknown_command", f"{command.kind} is not a Dynamics command")
    return Decision(tuple(out.events), out.state)


@dataclass(frozen=True, slots=True)
class DynamicsRuleBook:
    """The rule book of a Dynamics battle; ``secret`` (the match's, server side) seals the
    orders' nonces. Replay never needs it: the nonces are in the owner's secret events."""

    secret: str | bytes | None = None

    @property
    def rule_system(self) -> str:
        return SYSTEM_ID

    @property
    def event_codec(self) -> TaggedCodec:
        return EVENT_CODEC

    @property
    def command_codec(self) -> TaggedCodec:
        return COMMAND_CODEC

    def initial_state(self) -> DynamicsState:
        return DynamicsState()

    def evolve(self, state: DynamicsState, event: Event) -> DynamicsState:
        return evolve(state, event)

    def decide(
        self, state: DynamicsState, command: Tagged, actor: str, dice: Roller
    ) -> Decision[DynamicsState]:
        return decide(state, command, actor, dice, self.secret)
