"""Replay equals live: random commands through whole turns (hypothesis), refusals included."""

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.engine.dynamics import DynamicsBattle, DynStage, Order
from app.engine.dynamics.commands import (
    ChooseStarter,
    EndOrder,
    ExtremeMethod,
    LockOrders,
    PlaceOrder,
    Postpone,
    RevealOrder,
    RollAdvantage,
    StartTurn,
)
from app.engine.dynamics.evolve import remaining
from app.engine.match.codec import Tagged
from app.engine.match.errors import Refusal
from app.engine.pen.battle.commands import Charge, Fight, Move, ReportControl, Shoot
from app.engine.pen.battle.state import Speed
from tests.engine.dynamics.support import deployed, replayed


def candidates(battle: DynamicsBattle) -> list[tuple[Tagged, str]]:
    s = battle.state
    b = s.battle
    enemy = {
        seat: sorted(u.id for u in b.units.values() if u.seat != seat and u.on_table)
        for seat in ("A", "B")
    }
    out: list[tuple[Tagged, str]] = []
    if s.stage is DynStage.TURN_START:
        out.append((StartTurn(), "A"))
    elif s.stage is DynStage.PLACEMENT:
        for seat in ("A", "B"):
            if seat in s.locked:
                continue
            for unit in s.needs_order(seat):
                out.extend((PlaceOrder(unit, o), seat) for o in Order)
            out.append((LockOrders(), seat))
    elif s.stage in (DynStage.REVEAL, DynStage.RESOLVE) and not s.to_act:
        if s.advantage:
            out.extend((ChooseStarter(seat), s.advantage) for seat in ("A", "B"))
        else:
            roller = s.bonus if s.bonus and not s.bonus_spent else "A"
            out.extend((RollAdvantage(spend), roller) for spend in (False, bool(s.bonus)))
    elif s.stage is DynStage.REVEAL:
        seat = s.to_act
        for unit in remaining(s, seat):
            for target in ["", *enemy[seat][:2]]:
                out.extend((RevealOrder(unit, target=target, mode=m), seat) for m in ("", "shoot"))
    elif s.stage is DynStage.RESOLVE:
        seat = s.to_act
        fresh = sorted(x.unit for x in s.slots.values() if x.step == s.step and not x.resolved)
        out.append((ExtremeMethod(tuple(fresh)), seat))
        for unit in remaining(s, seat):
            slot = s.slots[unit]
            target = slot.declaration.target
            out.append((EndOrder(unit), seat))
            out.append((Postpone(unit), seat))
            out.append((Move(unit, Speed.NORMAL, 4), seat))
            out.append((Move(unit, Speed.RAPID, 8), seat))
            spec = b.unit_spec(unit)
            if target and spec.weapons:
                out.append((Shoot(unit, target, spec.weapons[0].name, 10, half_range=True), seat))
            if target:
                out.append((Charge(unit, target, 4), seat))
                out.append((Fight(unit, target), seat))
    elif s.stage is DynStage.OVER:
        out.append((ReportControl("objective-1", "A"), "A"))
    return out


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.integers(0, 10_000), min_size=50, max_size=300))
def test_random_commands_replay_to_the_live_state(picks: list[int]) -> None:
    battle = deployed()
    for i, pick in enumerate(picks):
        options = candidates(battle)
        if not options:
            break
        command, seat = options[pick % len(options)]
        try:
            battle.execute(command, seat, seed=pick * 31 + i)
        except Refusal:
            continue
    assert replayed(battle).state == battle.state
