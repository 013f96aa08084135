"""A full Dynamics turn through the engine with dice given by hand: no first player, hidden
orders, reveal 1 -> 10 with an advantage test, resolution 10 -> 1 with the PEN engine's
attacks, pending casualties that still strike, deferred morale, the next turn."""

import pytest

from app.engine.dynamics import DynStage, Order, verify
from app.engine.dynamics.commands import (
    ChooseStarter,
    EndOrder,
    LockOrders,
    PlaceOrder,
    Postpone,
    RevealOrder,
    RollAdvantage,
    StartTurn,
)
from app.engine.match.errors import Refusal
from app.engine.pen.battle.commands import Charge, Fight, Move, Shoot
from app.engine.pen.battle.state import Place, Speed
from tests.engine.dynamics.support import deployed, replayed, setup

# vet (WS3, 5 models, charging) against tac (WS4, 5 models): to hit, to wound, saves, then the
# loser's morale test (read off the PEN engine's die labels)
FIGHT = [3, 2, 4, 6, 1, 1, 5, 1, 3, 5, 1, 5, 2, 1, 1, 4, 4, 1, 2, 1, 5, 4, 1, 5, 1, 2]
LASGUNS = [4, 5, 3, 3, 2, 2, 6, 1, 3, 5, 4, 5, 1, 3, 5, 5, 6, 1, 6, 4]
LASGUNS += [2, 6, 4, 6, 4, 2, 2, 2, 1, 1, 2, 5, 5, 1, 6, 4, 6, 1, 3, 2]


def orders_placed():
    battle = deployed()
    assert battle.state.stage is DynStage.TURN_START
    assert battle.view("A")["deploys_first"] == "A"  # the roll-off chose deployment only
    battle.execute(StartTurn(), "B", dice=[1])  # dawn 1: still night [L948]; no reserves
    assert battle.state.stage is DynStage.PLACEMENT
    for unit, order in (("inf", Order.FIRE), ("vet", Order.ASSAULT), ("rhino", Order.FORCED_MARCH)):
        battle.execute(PlaceOrder(unit, order), "B")
    battle.execute(LockOrders(), "B")  # B locks first: +1 once this turn [L185]
    battle.execute(PlaceOrder("tac", Order.FIRE), "A")
    battle.execute(PlaceOrder("dev", Order.FIRE), "A")
    battle.execute(LockOrders(), "A")
    return battle


def test_a_full_turn_with_dice_by_hand() -> None:
    battle = orders_placed()
    s = battle.state
    assert (s.stage, s.step, s.to_act, s.bonus) == (DynStage.REVEAL, 3, "B", "B")
    # Initiative 3: only B has orders there (inf; the rhino's pilot is a Guardsman, 3)
    battle.execute(RevealOrder("inf", target="dev"), "B")
    battle.execute(RevealOrder("rhino"), "B")
    # Initiative 4: both players: an advantage test; the +1 holder says first
    assert (battle.state.step, battle.state.to_act) == (4, "")
    with pytest.raises(Refusal) as err:
        battle.execute(RollAdvantage(), "A", dice=[1, 1])
    assert err.value.code == "bonus_holder_rolls"
    battle.execute(RollAdvantage(), "B", dice=[3, 5])
    assert battle.state.advantage == "B"
    battle.execute(ChooseStarter("B"), "B")
    battle.execute(RevealOrder("vet", target="tac"), "B")
    with pytest.raises(Refusal) as err:
        battle.execute(RevealOrder("vet", target="tac"), "B")
    assert err.value.code == "not_your_go"
    battle.execute(RevealOrder("tac", target="vet"), "A")
    battle.execute(RevealOrder("dev", target="inf"), "A")
    # resolution from 10 down: Initiative 4 first; B spends its +1: 4+1 beats 4
    s = battle.state
    assert (s.stage, s.step, s.to_act) == (DynStage.RESOLVE, 4, "")
    battle.execute(RollAdvantage(spend_bonus=True), "B", dice=[4, 4])
    assert battle.state.advantage == "B"
    assert battle.state.bonus_spent
    battle.execute(ChooseStarter("B"), "B")
    battle.execute(Move("vet", Speed.NORMAL, 6), "B")
    with pytest.raises(Refusal) as err:
        battle.execute(Charge("vet", "dev", 5), "B")
    assert err.value.code == "declared_target"
    battle.execute(Charge("vet", "tac", 5), "B")
    battle.execute(Fight("vet", "tac"), "B", dice=FIGHT)  # one round [L92]
    units = battle.state.battle.units
    assert (units["vet"].models, units["tac"].models) == (3, 4)
    with pytest.raises(Refusal) as err:
        battle.execute(Fight("vet", "tac"), "B", dice=FIGHT)
    assert err.value.code == "one_round"
    battle.execute(EndOrder("vet"), "B")
    assert battle.state.to_act == "A"  # alternating, one order each [L227]
    battle.execute(EndOrder("tac"), "A")  # locked in combat: it cannot shoot
    battle.execute(Shoot("dev", "inf", "lascannon", 30), "A", dice=[2, 3, 4])  # no Guardsman falls
    battle.execute(EndOrder("dev"), "A")
    # Initiative 3: the pass's models at its start are what pending casualties act with
    s = battle.state
    assert (s.step, s.to_act) == (3, "B")
    assert s.pass_start["dev"] == 3
    battle.execute(Shoot("inf", "dev", "lasgun", 20, half_range=True), "B", dice=LASGUNS)
    assert battle.state.battle.units["dev"].models == 1
    assert battle.view("B")["dynamics"]["pending_casualties"] == {"dev": 2}
    # the Devastators lost 2 of 3 (>= 50%): they test at -1 once no order of the pass can still
    # shoot at them [L241]: right after the Guard's order ends
    envs = battle.execute(EndOrder("inf"), "B", dice=[5, 1])
    test = envs[-1].event
    assert test.kind == "test_taken"
    assert test.unit == "dev"
    assert test.malus == 1
    assert test.passed
    with pytest.raises(Refusal) as err:
        battle.execute(Postpone("rhino"), "B")
    assert err.value.code == "nothing_to_wait_for"
    with pytest.raises(Refusal) as err:  # a vehicle's rapid move: 12 ps (pen rulings B37)
        battle.execute(Move("rhino", Speed.RAPID, 13), "B")
    assert err.value.code == "too_far"
    battle.execute(Move("rhino", Speed.RAPID, 12), "B")  # Forced March: a rapid move (rulings D5)
    battle.execute(EndOrder("rhino"), "B")
    s = battle.state
    assert (s.stage, s.turn, s.bonus, s.slots) == (DynStage.TURN_START, 2, "", {})
    assert s.battle.units["dev"].place is Place.TABLE
    assert replayed(battle).state == battle.state


def test_commitments_verify_after_each_reveal() -> None:
    battle = orders_placed()
    committed = {
        e["event"]["unit"]: e["event"]["commitment"]
        for e in battle.log_json("A")
        if e["event"]["type"] == "order_committed"
    }
    battle.execute(RevealOrder("inf", target="dev"), "B")
    seen = {o["unit"]: o for o in battle.view("A")["dynamics"]["orders"]}
    assert seen["inf"]["order"] == "fire"
    assert verify(committed["inf"], 1, "inf", seen["inf"]["order"], seen["inf"]["nonce"])
    assert not verify(committed["inf"], 1, "inf", "assault", seen["inf"]["nonce"])
    assert "order" not in seen["vet"]
    assert "nonce" not in seen["vet"]
    assert seen["vet"]["commitment"] == committed["vet"]


def test_placement_rules_and_locks() -> None:
    battle = deployed(tokens_per_type={"A": 1, "B": 1})
    battle.execute(StartTurn(), "A", dice=[1])
    with pytest.raises(Refusal) as err:
        battle.execute(PlaceOrder("tac", Order.DEEP_STRIKE), "A")
    assert err.value.code == "no_deep_strike"  # only deep strike arrivals [L122], [L177]
    with pytest.raises(Refusal) as err:
        battle.execute(PlaceOrder("inf", Order.FIRE), "A")
    assert err.value.code == "not_your_unit"
    battle.execute(PlaceOrder("tac", Order.FIRE), "A")
    first = battle.state.slots["tac"].commitment
    battle.execute(PlaceOrder("tac", Order.FIRE), "A")  # placed again: a fresh nonce
    assert battle.state.slots["tac"].commitment != first
    with pytest.raises(Refusal) as err:
        battle.execute(LockOrders(), "A")
    assert err.value.code == "orders_missing"
    battle.execute(PlaceOrder("dev", Order.FIRE), "A")
    with pytest.raises(Refusal) as err:
        battle.execute(LockOrders(), "A")
    assert err.value.code == "out_of_tokens"  # one Fire token for 180 pts [L47]
    battle.execute(PlaceOrder("dev", Order.TACTICAL_MOVE), "A")
    with pytest.raises(Refusal) as err:  # undo would take back a secret: never
        battle.execute_json({"type": "undo"}, "A")
    assert err.value.code == "cannot_undo"
    battle.execute(LockOrders(), "A")
    with pytest.raises(Refusal) as err:
        battle.execute(PlaceOrder("dev", Order.FIRE), "A")
    assert err.value.code == "orders_locked"
    with pytest.raises(Refusal) as err:
        battle.execute_json({"type": "undo"}, "A")
    assert err.value.code == "cannot_undo"
    assert battle.state.slots["dev"].order is Order.TACTICAL_MOVE


def test_token_supply_check_at_set_up() -> None:
    problems = setup(tokens_per_type={"A": 0, "B": 1}).problems()
    assert [p for p, _ in problems] == ["tokens_per_type.A"]
    assert setup(plus_two="C").problems() == [("plus_two", "seat A, B or empty")]


def test_plus_two_wins_the_advantage_test() -> None:
    battle = deployed(plus_two="A")
    battle.execute(StartTurn(), "A", dice=[1])
    for unit in ("inf", "vet", "rhino"):
        battle.execute(PlaceOrder(unit, Order.FIRE), "B")
    for unit in ("tac", "dev"):
        battle.execute(PlaceOrder(unit, Order.FIRE), "A")
    battle.execute(LockOrders(), "A")  # A is the +1 holder too
    battle.execute(LockOrders(), "B")
    for unit in ("inf", "rhino"):
        battle.execute(RevealOrder(unit, target="tac"), "B")
    # 3 + 2 (the role that would begin) against 5: a tie, re-rolled [A5]; then 1 + 2 < 6
    envs = battle.execute(RollAdvantage(), "A", dice=[3, 5, 1, 6])
    event = envs[-1].event
    assert (event.total_a, event.total_b, event.winner) == (3, 6, "B")


def test_reserves_advantage_and_alternating_arrivals() -> None:
    from app.engine.dynamics import DynamicsBattle
    from app.engine.pen.battle.commands import (
        Arrive,
        ChooseFirst,
        DeclareReserve,
        Deploy,
        EndStep,
        RollOff,
    )
    from tests.engine.dynamics.support import SECRET

    battle = DynamicsBattle.create(setup(), secret=SECRET)
    battle.execute(DeclareReserve("dev"), "A")
    battle.execute(DeclareReserve("vet"), "B")
    battle.execute(EndStep(), "A")
    battle.execute(EndStep(), "B")
    battle.execute(RollOff(), "A", dice=[2, 5])
    battle.execute(ChooseFirst("A"), "B")  # B won the roll-off: A deploys first
    for seat in ("A", "B"):
        for u in battle.state.battle.seat_units(seat):
            if u.place is Place.UNDEPLOYED:
                battle.execute(Deploy(u.id), seat)
        battle.execute(EndStep(), seat)
    # dawn 1; reserves on turn 1 arrive on 5+ (PEN's table, D4): dev 5, vet 6; advantage 2 v 4
    envs = battle.execute(StartTurn(), "A", dice=[1, 5, 6, 2, 4])
    assert [e.event.kind for e in envs][-1] == "advantage_rolled"
    assert (battle.state.stage, battle.state.advantage) == (DynStage.ARRIVALS, "B")
    battle.execute(ChooseStarter("A"), "B")  # B lets A place first [L152]
    with pytest.raises(Refusal) as err:
        battle.execute(Arrive("vet", Speed.NORMAL, 6), "B")
    assert err.value.code == "not_your_go"
    battle.execute(Arrive("dev", Speed.NORMAL, 6), "A")
    battle.execute(Arrive("vet", Speed.NORMAL, 6), "B")
    assert battle.state.stage is DynStage.PLACEMENT
    assert battle.state.needs_order("A") == ["dev", "tac"]  # arrivals take orders [L173]
    assert replayed(battle).state == battle.state
