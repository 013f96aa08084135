"""Double Tir on a heavy vehicle's weapon (issue 16, rulings 105): in the vehicle's Shooting
Action that weapon fires twice, at two different targets, one roll each [L563-L577],
[L1196-L1200].

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
