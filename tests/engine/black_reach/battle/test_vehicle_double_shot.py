"""Double Tir and Rafale on a heavy vehicle's weapon (issue 16, rulings 105): in the vehicle's
Shooting Action a Double Tir weapon fires twice, at two different targets, one roll each
[L563-L577], [L1196-L1200]; a Rafale weapon splits its modified CV between targets of one
class within 2 squares of each other [L1296-L1317].

The board and forces of ``test_heavy_vehicles``: the sample battle tank on (2, 3) facing N,
its main weapon (CV 3 against infantry) here given Double Tir; the Orks' Nob (DV 5, a Hit
Point) on (6, 4), the Boyz (DV 4) on (7, 0) and (7, 1).
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from app.engine.black_reach.battle import BattleSetup, BlackReachBattle
from app.engine.black_reach.battle.events import UnitShot
from app.engine.match.errors import Refusal
from tests.engine.black_reach.battle.test_heavy_vehicles import (
    BOYZ1,
    BOYZ2,
    NOB,
    SHOOTAS,
    TANK,
    order,
    setup,
)

A, B = "A", "B"


def double_setup() -> BattleSetup:
    base = setup()
    catalogue = copy.deepcopy(base.catalogue)
    assert isinstance(catalogue, dict)
    tank = next(c for c in catalogue["counters"] if c["id"] == "sample-um-battle-tank")
    tank["faces"][0]["weapons"][0]["abilities"].append({"id": "double_shot"})
    return BattleSetup(base.scenario, catalogue, base.boards, base.seats, base.deployment)


def ready() -> BlackReachBattle:
    battle = BlackReachBattle.create(double_setup())
    battle.execute_json({"type": "place_orders", "orders": [order(SHOOTAS, 1), order(NOB, 2)]}, B)
    battle.execute_json({"type": "place_orders", "orders": [order(TANK, 1)]}, A)
    battle.execute_json({"type": "hold", "unit": SHOOTAS}, B)
    return battle


def fire(*shots: tuple[str, str]) -> dict[str, Any]:
    return {
        "type": "vehicle_fire",
        "unit": TANK,
        "shots": [{"weapon": w, "target": t} for w, t in shots],
    }


def refused(battle: BlackReachBattle, command: dict[str, Any]) -> Refusal:
    version = battle.version
    with pytest.raises(Refusal) as info:
        battle.execute_json(command, A, dice=[6, 6, 6])
    assert battle.version == version
    return info.value


def test_the_double_tir_weapon_fires_at_two_targets_in_the_one_action() -> None:
    battle = ready()
    entry = next(a for a in battle.actions(A) if a["command"]["type"] == "vehicle_fire")
    assert {w["weapon"]: w["shots"] for w in entry["weapons"]} == {
        "main_1": 2,
        "secondary_1": 1,
    }
    new = battle.execute_json(
        fire(("main_1", BOYZ1), ("main_1", BOYZ2), ("secondary_1", NOB)), A, dice=[1, 2, 1]
    )
    shots = [
        (e.event.weapon, e.event.target, e.event.final)
        for e in new
        if isinstance(e.event, UnitShot)
    ]
    # main 1 + 3, 2 + 3 against the Boyz (DV 4); secondary 1 + 2 against the Nob
    assert shots == [("main_1", BOYZ1, 4), ("main_1", BOYZ2, 5), ("secondary_1", NOB, 3)]


def test_double_tir_needs_two_different_targets_and_no_third_shot() -> None:
    battle = ready()
    assert refused(battle, fire(("main_1", BOYZ1), ("main_1", BOYZ1))).code == (
        "double_shot_targets"
    )
    three = fire(("main_1", BOYZ1), ("main_1", BOYZ2), ("main_1", NOB))
    assert refused(battle, three).code == "weapon_twice"
    # a weapon without Double Tir still fires once
    twice = fire(("secondary_1", BOYZ1), ("secondary_1", NOB))
    assert refused(battle, twice).code == "weapon_twice"


def burst_ready() -> BlackReachBattle:
    base = setup()
    catalogue = copy.deepcopy(base.catalogue)
    assert isinstance(catalogue, dict)
    tank = next(c for c in catalogue["counters"] if c["id"] == "sample-um-battle-tank")
    tank["faces"][0]["weapons"][0]["abilities"].append({"id": "burst"})
    battle = BlackReachBattle.create(
        BattleSetup(base.scenario, catalogue, base.boards, base.seats, base.deployment)
    )
    battle.execute_json({"type": "place_orders", "orders": [order(SHOOTAS, 1), order(NOB, 2)]}, B)
    battle.execute_json({"type": "place_orders", "orders": [order(TANK, 1)]}, A)
    battle.execute_json({"type": "hold", "unit": SHOOTAS}, B)
    return battle


def split(*shares: tuple[str, int]) -> dict[str, Any]:
    return {
        "type": "vehicle_fire",
        "unit": TANK,
        "shots": [{"weapon": "main_1", "target": t, "share": cv} for t, cv in shares],
    }


def test_a_rafale_weapon_splits_its_modified_cv_in_the_vehicles_action() -> None:
    battle = burst_ready()
    new = battle.execute_json(split((BOYZ1, 2), (BOYZ2, 1)), A, dice=[2, 3])
    declared = next(e.event for e in new if e.event.kind == "burst_declared")
    assert (declared.weapon, declared.modified_cv) == ("main_1", 3)  # CV 3 against infantry
    shots = [
        (e.event.target, e.event.cv, e.event.final) for e in new if isinstance(e.event, UnitShot)
    ]
    assert shots == [(BOYZ1, 2, 4), (BOYZ2, 1, 4)]


def test_bad_weapon_rafales_are_refused_before_any_die() -> None:
    battle = burst_ready()
    assert refused(battle, split((BOYZ1, 2), (BOYZ2, 2))).code == "burst_total"
    assert refused(battle, split((BOYZ1, 2), (NOB, 1))).code == "burst_spread"
    assert refused(battle, split((BOYZ1, 3), (BOYZ2, 0))).code == "burst_share"
    single = {
        "type": "vehicle_fire",
        "unit": TANK,
        "shots": [{"weapon": "secondary_1", "target": BOYZ1, "share": 1}],
    }
    assert refused(battle, single).code == "no_burst"
