"""A Dynamics battle records the PEN move table it is played with (pen rulings B37), as a
PEN battle does: a log recorded before keeps the flat limits."""

import json

from app.engine.dynamics import DynamicsBattle, DynamicsSetup, DynStage, Order
from app.engine.dynamics.commands import LockOrders, PlaceOrder, RevealOrder, StartTurn
from app.engine.pen.battle import ArmySpec, BattleSetup, UnitSpec
from app.engine.pen.battle.commands import ChooseFirst, Deploy, EndStep, RollOff, Shoot
from tests.engine.dynamics.support import (
    BOLTER,
    GUARD,
    LASGUN,
    MARINE,
    SECRET,
    deployed,
    setup,
)


def test_creating_a_dynamics_battle_records_the_seed_moves() -> None:
    battle = deployed()
    first = json.loads(battle.match.export_json())["events"][0]["event"]
    assert first["setup"]["battle"]["seed_moves"] is True
    assert battle.state.battle.setup is not None
    assert battle.state.battle.setup.seed_moves is True


def test_a_dynamics_log_recorded_before_replays_without_the_field() -> None:
    battle = DynamicsBattle.create(setup(), secret=SECRET)
    data = json.loads(battle.match.export_json())
    del data["events"][0]["event"]["setup"]["battle"]["seed_moves"]
    old = DynamicsBattle.import_log(json.dumps(data))
    assert old.state.battle.setup is not None
    assert old.state.battle.setup.seed_moves is None


def _bikes_shot_in_turn_1(seed_moves: bool) -> list[str]:
    """Marines (BS4) shoot Guard bikes in common turn 1 before the bikes move: the to-hit
    outcomes of five 4s."""
    a = ArmySpec("A", "Marines", (UnitSpec("tac", "Tac", 100, 5, MARINE, (BOLTER,)),))
    bike = GUARD | {"unit_type": "moto"}
    b = ArmySpec("B", "Guard", (UnitSpec("bikes", "Bikes", 100, 3, bike, (LASGUN,)),))
    battle_setup = BattleSetup((a, b), points_limit=300, objectives=1, seed_moves=seed_moves)
    battle = DynamicsBattle.create(DynamicsSetup(battle_setup), secret=SECRET)
    battle.execute(EndStep(), "A")
    battle.execute(EndStep(), "B")
    battle.execute(RollOff(), "B", dice=[5, 2])
    battle.execute(ChooseFirst("A"), "A")
    battle.execute(Deploy("tac"), "A")
    battle.execute(EndStep(), "A")
    battle.execute(Deploy("bikes"), "B")
    battle.execute(EndStep(), "B")
    battle.execute(StartTurn(), "A", dice=[1])
    battle.execute(PlaceOrder("bikes", Order.FIRE), "B")
    battle.execute(LockOrders(), "B")
    battle.execute(PlaceOrder("tac", Order.FIRE), "A")
    battle.execute(LockOrders(), "A")
    battle.execute(RevealOrder("bikes", target="tac"), "B")  # Initiative 3 reveals first
    battle.execute(RevealOrder("tac", target="bikes"), "A")
    assert (battle.state.stage, battle.state.step) == (DynStage.RESOLVE, 4)
    dice = [4] * 5 + ([] if seed_moves else [1] * 5)  # the hits then roll to wound: 1s
    envs = battle.execute(Shoot("tac", "bikes", "bolter", 20), "A", dice=dice)
    shot = envs[-1].event
    assert shot.kind == "unit_shot"
    return [d.outcome for d in shot.roll.dice if d.label == "to hit"]  # type: ignore[attr-defined]


def test_in_turn_1_a_target_counts_its_own_maximum_rapid_move() -> None:
    """Rulings D3 with pen B37: bikes that have not moved count as having made their 24 ps
    rapid move: -2 to hit them [L1335], BS4 hits on 5+ and the 4s miss. A battle recorded
    before B37 counted 12 ps for every target: no malus, the 4s hit on 3+."""
    assert _bikes_shot_in_turn_1(True) == ["miss"] * 5
    assert _bikes_shot_in_turn_1(False) == ["hit"] * 5
